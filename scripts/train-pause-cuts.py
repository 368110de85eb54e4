#!/usr/bin/env python3
"""Trains the stays pass's stop-or-traffic model (PauseModel, docs/PASSES.md "Learned: stop or traffic").

Input: the candidate pauses `tripline evaluate --geolife ... --dump-pauses FILE` writes (development users only: the
lockbox users are skipped by `evaluate` and refused here). Label: 1 (traffic) when a truth trip of the labelled-time
rule holds the whole stay, else 0 (a stop). Model: gradient-boosted stumps as scripts/stumps.py fits them
(logistic loss, ROUNDS rounds of one split on one feature each, Newton leaf values shrunk by RATE, splits at the
2nd..98th percentiles of each feature): deterministic, no random start, no sampling, ties broken by feature then split
order. Threshold: join a candidate into one trip when its traffic probability is above 0.5 -- fixed before training
(joining a real stop merges two trips, joining a pause mends one cut in two: each error costs about one match), not
tuned. With --stumps 1 --rate 1 the model is one threshold on one feature, chosen on the training users alone: the
plain-threshold alternative, scored the same way.

Steps:
  1. leave-one-user-out: for each user, fit on the others, predict that user; per-fold and pooled held-out accuracy
     beside "keep every stay";
  2. writes each fold's model to FOLDS/USER.txt (for `evaluate --pause-model FOLDS`, held-out end to end);
  3. fits on every development user, writes that model to --all FILE and the generated Swift source (--swift).

Usage:
  scripts/train-pause-cuts.py PAUSES.csv [--folds DIR [--users 010,...]] [--all FILE] [--swift Sources/TriplinePasses/Generated/PauseCutCoefficients.swift]
"""
import argparse
import os

import numpy as np

from stumps import fit, model_text, predict, print_weights, read, swift_source, write_unseen_folds

THRESHOLD = 0.5
ROUNDS = 100
RATE = 0.2
SCRIPT = "scripts/train-pause-cuts.py"
COMMAND = "tripline evaluate --geolife ../shared/corpus/geolife --geolife ../shared/corpus/geolife-more --dump-pauses PAUSES.csv; scripts/train-pause-cuts.py PAUSES.csv"


def text(model, names, trained_on):
    return model_text(model, names, THRESHOLD, "PauseModel", SCRIPT, trained_on)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("candidates")
    ap.add_argument("--folds", help="write each fold's model to DIR/USER.txt")
    ap.add_argument("--swift", help="write the model fitted on every user to this Swift file")
    ap.add_argument("--all", help="write the model fitted on every user to this text file (evaluate --pause-model FILE)")
    ap.add_argument("--stumps", type=int, default=ROUNDS, help="boosting rounds (1: a single threshold)")
    ap.add_argument("--rate", type=float, default=RATE, help="shrinkage of each stump's leaf values")
    ap.add_argument("--users", default="", help="with --folds: also write DIR/USER.txt for these users (comma-separated) when "
                    "they have no candidate: the model fitted on every user never saw them")
    args = ap.parse_args()
    names, users, outcome, x, y = read(args.candidates)
    order = sorted(set(users))
    print(f"{len(y)} candidate pauses from {len(order)} users; {int(y.sum())} traffic (label 1); "
          f"where: {', '.join(f'{w} {int((outcome == w).sum())}' for w in sorted(set(outcome)))}; threshold {THRESHOLD}")
    print("user   n  traffic  held-out acc  keep-all acc   joined: traffic / stop")
    right = keep_right = 0
    joined_traffic = joined_stop = 0
    if args.folds:
        os.makedirs(args.folds, exist_ok=True)
    for u in order:
        test = users == u
        model = fit(x[~test], y[~test], args.stumps, args.rate)
        if args.folds:
            with open(os.path.join(args.folds, u + ".txt"), "w") as f:
                f.write(text(model, names, "every development user but " + u))
        guess = predict(model, x[test]) > THRESHOLD
        truth = y[test] > 0.5
        a, c = (guess == truth).sum(), (~truth).sum()
        right, keep_right = right + a, keep_right + c
        dd, dr = (guess & truth).sum(), (guess & ~truth).sum()
        joined_traffic, joined_stop = joined_traffic + dd, joined_stop + dr
        n = test.sum()
        print(f"{u}  {n:4d}  {int(truth.sum()):4d}       {a / n:.3f}         {c / n:.3f}        {dd:4d} / {dr:4d}")
    n = len(y)
    accuracy = right / n
    print(f"pooled {n:4d}  {int(y.sum()):4d}     {accuracy:.3f}         {keep_right / n:.3f}        "
          f"{joined_traffic:4d} / {joined_stop:4d}")
    final = fit(x, y, args.stumps, args.rate)
    print_weights(final, names)
    if args.folds:
        write_unseen_folds(args.folds, args.users, order, final, lambda m, on: text(m, names, on))
    if args.all:
        with open(args.all, "w") as f:
            f.write(text(final, names, "every development user"))
    if args.swift:
        with open(args.swift, "w") as f:
            f.write(swift_source(final, names, order, accuracy, THRESHOLD, "PauseModel", SCRIPT, COMMAND,
                                 'The shipped stop-or-traffic ensemble (see docs/PASSES.md, "Learned: stop or traffic")'))
        print(f"wrote {args.swift}")


if __name__ == "__main__":
    main()
