#!/usr/bin/env python3
"""Trains the stays pass's stop-or-traffic model (PauseModel, docs/PASSES.md "Learned: stop or traffic").

Input: the candidate pauses `tripline evaluate --geolife ... --dump-pauses FILE` writes (development users only: the
lockbox users are skipped by `evaluate` and refused here). Label: 1 (traffic) when a truth trip of the labelled-time
rule holds the whole stay, else 0 (a stop). Model: gradient-boosted stumps as scripts/train-trip-cuts.py fits them
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
import csv
import os
import sys

import numpy as np

LOCKBOX = {"067", "082", "101", "126", "139", "154", "161", "170", "174", "175"}
THRESHOLD = 0.5
ROUNDS = 100
RATE = 0.2
L2 = 1.0
COMMAND = "tripline evaluate --geolife ../shared/corpus/geolife --geolife ../shared/corpus/geolife-more --dump-pauses PAUSES.csv; scripts/train-pause-cuts.py PAUSES.csv"


def read(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    names = header[5:]
    users = np.array([r[0] for r in body])
    bad = sorted(set(users) & LOCKBOX)
    if bad:
        sys.exit(f"{path}: holds lockbox users {' '.join(bad)}: the final test is never trained on")
    outcome = np.array([r[3] for r in body])
    y = np.array([int(r[4]) for r in body], dtype=float)
    x = np.array([[float(v) for v in r[5:]] for r in body], dtype=float)
    return names, users, outcome, x, y


def fit(x, y):
    """Gradient-boosted stumps: (base log-odds, [(feature, split, left, right)])."""
    if ROUNDS == 1:
        # One threshold on one feature: the leaf values are each side's own log-odds (no shrinkage).
        return fit_threshold(x, y)
    n, d = x.shape
    base = float(np.log((y.mean() + 1e-6) / (1 - y.mean() + 1e-6)))
    f = np.full(n, base)
    splits = [np.unique(np.quantile(x[:, j], np.linspace(0.02, 0.98, 49))) for j in range(d)]
    masks = [[x[:, j] <= c for c in splits[j]] for j in range(d)]
    stumps = []
    for _ in range(ROUNDS):
        p = 1 / (1 + np.exp(-f))
        g, h = p - y, p * (1 - p)
        gt, ht = g.sum(), h.sum()
        best = None
        for j in range(d):
            for c, left in zip(splits[j], masks[j]):
                gl, hl = g[left].sum(), h[left].sum()
                gain = gl * gl / (hl + L2) + (gt - gl) ** 2 / (ht - hl + L2)
                if best is None or gain > best[0] + 1e-12:
                    best = (gain, j, float(c), -gl / (hl + L2) * RATE, -(gt - gl) / (ht - hl + L2) * RATE)
        _, j, c, vl, vr = best
        f += np.where(x[:, j] <= c, vl, vr)
        stumps.append((j, c, float(vl), float(vr)))
    return base, stumps


def fit_threshold(x, y):
    """The single split (feature, threshold) with the most right answers on (x, y), leaves at each side's log-odds."""
    n, d = x.shape
    best = None
    for j in range(d):
        for c in np.unique(np.quantile(x[:, j], np.linspace(0.02, 0.98, 49))):
            left = x[:, j] <= c
            for sign in (1, -1):
                guess = left if sign == 1 else ~left
                right = int((guess == (y > 0.5)).sum())
                if best is None or right > best[0]:
                    best = (right, j, float(c), sign)
    _, j, c, sign = best
    return 0.0, [(j, c, 5.0 * sign, -5.0 * sign)]


def predict(model, x):
    base, stumps = model
    f = np.full(len(x), base)
    for j, c, vl, vr in stumps:
        f += np.where(x[:, j] <= c, vl, vr)
    return 1 / (1 + np.exp(-f))


def model_text(model, names, trained_on):
    base, stumps = model
    lines = [f"# PauseModel: {len(stumps)} boosted stumps, written by scripts/train-pause-cuts.py; trained on {trained_on}",
             f"base {base!r}", f"threshold {THRESHOLD!r}"]
    lines += [f"stump {names[j]} {c!r} {vl!r} {vr!r}" for j, c, vl, vr in stumps]
    return "\n".join(lines) + "\n"


def swift_source(model, names, users, accuracy):
    base, stumps = model
    body = "".join(f"            .init({j}, {c!r}, {vl!r}, {vr!r}),  // {names[j]}\n" for j, c, vl, vr in stumps)
    return f"""// Generated by scripts/train-pause-cuts.py -- do not edit. Reproduce:
//   {COMMAND}
// Trained on {len(users)} development GeoLife users ({' '.join(users)}); leave-one-user-out held-out accuracy
// {accuracy:.4f}. Lockbox users are never trained on.

extension PauseModel {{
    /// The shipped stop-or-traffic ensemble (see docs/PASSES.md, "Learned: stop or traffic"): {len(stumps)} stumps
    /// (feature index, split, log-odds at or below, above).
    public static let shipped = PauseModel(
        base: {base!r},
        stumps: [
{body}        ],
        threshold: {THRESHOLD!r})
}}
"""


def main():
    global ROUNDS, RATE
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
    ROUNDS, RATE = args.stumps, args.rate
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
        model = fit(x[~test], y[~test])
        if args.folds:
            with open(os.path.join(args.folds, u + ".txt"), "w") as f:
                f.write(model_text(model, names, "every development user but " + u))
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
    final = fit(x, y)
    used = {}
    for j, c, vl, vr in final[1]:
        used[names[j]] = used.get(names[j], 0) + abs(vl - vr)
    print("features by total split weight, all users:")
    for name, w in sorted(used.items(), key=lambda t: -t[1]):
        print(f"  {name:24s} {w:.3f}")
    if args.folds:
        for u in [v for v in args.users.split(",") if v and v not in order]:
            if u in LOCKBOX:
                sys.exit(f"--users: {u} is a lockbox user")
            with open(os.path.join(args.folds, u + ".txt"), "w") as f:
                f.write(model_text(final, names, "every development user (" + u + " has no candidate)"))
    if args.all:
        with open(args.all, "w") as f:
            f.write(model_text(final, names, "every development user"))
    if args.swift:
        with open(args.swift, "w") as f:
            f.write(swift_source(final, names, order, accuracy))
        print(f"wrote {args.swift}")


if __name__ == "__main__":
    main()
