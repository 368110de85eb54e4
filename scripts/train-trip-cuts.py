#!/usr/bin/env python3
"""Trains the trips pass's drift-or-walk model (TripCutModel, docs/PASSES.md "Learned: drift or walk").

Input: the candidates `tripline evaluate --geolife ... --dump-trip-cuts FILE` writes (development users only: the
lockbox users are skipped by `evaluate` and refused here). Model: gradient-boosted stumps (scripts/stumps.py: logistic loss, 100
rounds of one split on one feature each, Newton leaf values shrunk by 0.2, splits at the 2nd..98th percentiles of each
feature): deterministic, no random start, no sampling, ties broken by feature then split order. (A logistic regression
on the same features reached 0.855 held out, below the 300-m rule's 0.908: the boundary is a step, which stumps
draw and a linear model does not.) Threshold: drop a candidate when
its drift probability is above 0.6 -- fixed before training, from the cost of each error to the trip F1 (dropping a
real trip loses a match; at the development figures a lost match costs about 1.7 times what removing a false positive
gains), not tuned.

Steps:
  1. leave-one-user-out: for each user, fit on the others, predict that user; per-fold and pooled held-out accuracy,
     beside the threshold rule "drift = never left 300 m of the first fix" and "keep every candidate";
  2. writes each fold's model to FOLDS/USER.txt (for `evaluate --trip-cut-model FOLDS`, held-out end to end);
  3. fits on every development user and writes the generated Swift source (the shipped coefficients).

Usage:
  scripts/train-trip-cuts.py CANDIDATES.csv [--folds DIR [--users 010,...]] [--swift Sources/TriplinePasses/Generated/TripCutCoefficients.swift]
"""
import argparse
import os

import numpy as np

from stumps import fit, model_text, predict, print_weights, read, swift_source, write_unseen_folds

THRESHOLD = 0.6
SCRIPT = "scripts/train-trip-cuts.py"
COMMAND = "tripline evaluate --geolife ../shared/corpus/geolife --geolife ../shared/corpus/geolife-more --dump-trip-cuts CANDIDATES.csv; scripts/train-trip-cuts.py CANDIDATES.csv"


def text(model, names, trained_on):
    return model_text(model, names, THRESHOLD, "TripCutModel", SCRIPT, trained_on)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("candidates")
    ap.add_argument("--folds", help="write each fold's model to DIR/USER.txt")
    ap.add_argument("--swift", help="write the model fitted on every user to this Swift file")
    ap.add_argument("--users", default="", help="with --folds: also write DIR/USER.txt for these users (comma-separated) when "
                    "they have no candidate: the model fitted on every user never saw them")
    args = ap.parse_args()
    names, users, outcome, x, y = read(args.candidates)
    max_from_first = np.expm1(x[:, names.index("log_max_from_first_m")])
    order = sorted(set(users))
    print(f"{len(y)} candidates from {len(order)} users; {int(y.sum())} drift (label 1); threshold {THRESHOLD}")
    print("user   n  drift  held-out acc  rule<300m acc  keep-all acc   dropped: drift / real")
    right = rule_right = keep_right = 0
    dropped_drift = dropped_real = 0
    if args.folds:
        os.makedirs(args.folds, exist_ok=True)
    for u in order:
        test = users == u
        model = fit(x[~test], y[~test])
        if args.folds:
            with open(os.path.join(args.folds, u + ".txt"), "w") as f:
                f.write(text(model, names, "every development user but " + u))
        guess = predict(model, x[test]) > THRESHOLD
        truth = y[test] > 0.5
        rule = max_from_first[test] <= 300
        a, b, c = (guess == truth).sum(), (rule == truth).sum(), (~truth).sum()
        right, rule_right, keep_right = right + a, rule_right + b, keep_right + c
        dd, dr = (guess & truth).sum(), (guess & ~truth).sum()
        dropped_drift, dropped_real = dropped_drift + dd, dropped_real + dr
        n = test.sum()
        print(f"{u}  {n:4d}  {int(truth.sum()):4d}     {a / n:.3f}          {b / n:.3f}          {c / n:.3f}       {dd:4d} / {dr:4d}")
    n = len(y)
    accuracy = right / n
    print(f"pooled {n:4d}  {int(y.sum()):4d}     {accuracy:.3f}          {rule_right / n:.3f}          {keep_right / n:.3f}       "
          f"{dropped_drift:4d} / {dropped_real:4d}")
    final = fit(x, y)
    print_weights(final, names)
    if args.folds:
        write_unseen_folds(args.folds, args.users, order, final, lambda m, on: text(m, names, on))
    if args.swift:
        with open(args.swift, "w") as f:
            f.write(swift_source(final, names, order, accuracy, THRESHOLD, "TripCutModel", SCRIPT, COMMAND,
                                 'The shipped drift-or-walk ensemble (see docs/PASSES.md, "Learned: drift or walk")'))
        print(f"wrote {args.swift}")


if __name__ == "__main__":
    main()
