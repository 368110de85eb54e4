#!/usr/bin/env python3
"""Trains the trips pass's learned mode model (issue 23, item 3; docs/PASSES.md, "Learned modes").

Input: the per-leg features of the GeoLife development users, as the speed rules cut the legs (never the lockbox users:
`evaluate --geolife` skips them):

    swift build -c release --product tripline
    .build/release/tripline evaluate --geolife ../shared/corpus/geolife --geolife ../shared/corpus/geolife-more \
        --set trips.mode_model=0 --dump-leg-features /tmp/legs.csv
    python3 scripts/train-modes.py /tmp/legs.csv --folds /tmp/mode-folds

Model: multinomial logistic regression (foot / bicycle / motorised) over the standardised features, each leg weighed
by the observed labelled seconds inside it per class (the loss is the time-weighted cross-entropy, so it aims at the
headline's observed-time 3-class accuracy), L2 penalty chosen by an inner leave-one-user-out, fitted by Newton's method
from zero (deterministic: no random start, no sampling).

Prints, per held-out user and pooled, the observed-time 3-class accuracy over the dumped legs of the rules (the class
the rules gave the leg) and of the model trained on the other users (legs whose fixes are more than a minute apart
keep the rules' class, as in the pass). Writes the model trained on all users into
Sources/TriplinePasses/Learned/ModeModel.swift; with --folds DIR, also each fold's model as DIR/USER.txt (the text
form `evaluate --mode-model DIR` reads, so that each user is rebuilt and scored end to end with the model that never
saw it); with --text FILE, the final model in that form.
"""
import argparse
import os
import sys

import numpy as np

CLASSES = ["foot", "bicycle", "motorised"]
PENALTIES = [1e-4, 1e-3, 1e-2, 1e-1]
MAX_FIX_INTERVAL_S = 60  # ModeFeatures.learnedMaxFixIntervalS
HERE = os.path.dirname(os.path.abspath(__file__))
SWIFT = os.path.join(HERE, "..", "Sources", "TriplinePasses", "Learned", "ModeModel.swift")


def read(path):
    with open(path) as f:
        header = f.readline().strip().split(",")
        rows = [line.rstrip("\n").split(",") for line in f if line.strip()]
    first = header.index("rule_class") + 1
    motion = header.index("motion_walking")
    names = header[first:motion]
    seconds_at = [header.index(c + "_s") for c in CLASSES]
    users = np.array([r[0] for r in rows])
    rule = np.array([r[header.index("rule_class")] for r in rows])
    x = np.array([[float(v) for v in r[first:motion]] for r in rows])
    s = np.array([[float(r[k]) for k in seconds_at] for r in rows])
    return names, users, rule, x, s


def standardise(x):
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale < 1e-9] = 1.0
    return mean, scale


def fit(x, s, penalty):
    """Newton's method on the time-weighted cross-entropy (per observed hour) + penalty/2 |W|² (bias not penalised)."""
    mean, scale = standardise(x)
    z = np.hstack([np.ones((len(x), 1)), (x - mean) / scale])
    n, d = z.shape
    k = len(CLASSES)
    total = s.sum()
    y = s / total  # each leg's share of the observed time, per class
    weight = y.sum(axis=1)
    w = np.zeros((d, k))
    reg = np.full(d, penalty)
    reg[0] = 1e-6  # the bias almost unpenalised (a little pins the softmax's common shift)

    def loss(w):
        logits = z @ w
        logits -= logits.max(axis=1, keepdims=True)
        logp = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
        return -(y * logp).sum() + 0.5 * (reg[:, None] * w * w).sum()

    current = loss(w)
    for _ in range(100):
        logits = z @ w
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(axis=1, keepdims=True)
        grad = z.T @ (p * weight[:, None] - y) + reg[:, None] * w
        hess = np.zeros((d * k, d * k))
        for a in range(k):
            for b in range(k):
                c = weight * p[:, a] * ((1.0 if a == b else 0.0) - p[:, b])
                hess[a * d:(a + 1) * d, b * d:(b + 1) * d] = (z * c[:, None]).T @ z
        hess += np.diag(np.tile(reg, k)) + 1e-9 * np.eye(d * k)
        # Class-major flattening of the gradient, to match the Hessian's blocks.
        step = np.linalg.solve(hess, grad.T.reshape(-1)).reshape(k, d).T
        t = 1.0
        while t > 1e-6:
            trial = w - t * step
            value = loss(trial)
            if value <= current:
                break
            t /= 2
        if current - value < 1e-12:
            w, current = trial, value
            break
        w, current = trial, value
    # The softmax is unchanged by a shift common to all classes: centre each row for a canonical form.
    w -= w.mean(axis=1, keepdims=True)
    return mean, scale, w


def predict(model, x):
    mean, scale, w = model
    z = np.hstack([np.ones((len(x), 1)), (x - mean) / scale])
    return np.argmax(z @ w, axis=1)


def gated(pred, rules, x, names):
    """The pass's gate (ModeFeatures.learnedSampling): legs whose median fix interval is above a minute keep the
    rules' class. (The pass also keeps the rules for legs of fewer than three fixes and for fixes with reported
    speeds; the dump holds neither count, and GeoLife reports no speed.)"""
    sparse = x[:, names.index("log_fix_interval_s")] > np.log(1 + MAX_FIX_INTERVAL_S)
    return np.where(sparse, rules, pred)


def rule_classes(rule):
    return np.array([0 if r in ("walk", "run", "still") else 1 if r == "cycle" else 2 for r in rule])


def right(pred, s):
    return s[np.arange(len(s)), pred].sum()


def choose_penalty(users, x, s):
    """The penalty with the best pooled held-out accuracy by leave-one-user-out over `users`."""
    best, best_value = PENALTIES[0], -1.0
    names = sorted(set(users))
    for penalty in PENALTIES:
        got = 0.0
        for u in names:
            train = users != u
            got += right(predict(fit(x[train], s[train], penalty), x[~train]), s[~train])
        if got > best_value + 1e-9:
            best, best_value = penalty, got
    return best


def text(model, names, penalty, users):
    mean, scale, w = model
    f = lambda v: "%.9g" % v
    out = ["# tripline learned mode model (scripts/train-modes.py): multinomial logistic regression, L2 %g" % penalty,
           "# trained on GeoLife users " + " ".join(sorted(set(users))),
           "features " + " ".join(names),
           "mean " + " ".join(f(v) for v in mean),
           "scale " + " ".join(f(v) for v in scale)]
    for c, name in enumerate(CLASSES):
        out.append(name + " " + " ".join(f(v) for v in w[:, c]))
    return "\n".join(out) + "\n"


def swift(model, names, penalty, users, folds):
    mean, scale, w = model
    f = lambda v: "%.9g" % v
    row = lambda vs: "[" + ", ".join(f(v) for v in vs) + "]"
    lines = [
        "// Generated by scripts/train-modes.py: do not edit. The learned mode model (docs/PASSES.md, \"Learned modes\"):",
        "// multinomial logistic regression (foot, bicycle, motorised) over ModeFeatures, L2 penalty %g chosen by" % penalty,
        "// leave-one-user-out, trained on the legs of the GeoLife development users",
        "// " + " ".join(sorted(set(users))) + ".",
        "// Held out (leave-one-user-out, observed-time 3-class over the dumped legs): " + folds + ".",
        "",
        "extension ModeModel {",
        "    /// The coefficients trained on every development user.",
        "    public static let shipped = ModeModel(",
        "        // " + ", ".join(names),
        "        mean: " + row(mean) + ",",
        "        scale: " + row(scale) + ",",
        "        bias: " + row(w[0]) + ",",
        "        weights: [",
    ]
    for c, name in enumerate(CLASSES):
        lines.append("            " + row(w[1:, c]) + ",  // " + name)
    lines += ["        ])", "}", ""]
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("legs", help="CSV from evaluate --dump-leg-features")
    parser.add_argument("--folds", help="write each fold's model as DIR/USER.txt")
    parser.add_argument("--text", help="write the final model's text form to FILE")
    parser.add_argument("--swift", default=SWIFT, help="the generated Swift file (default: %(default)s)")
    args = parser.parse_args()
    names, users, rule, x, s = read(args.legs)
    if args.folds:
        os.makedirs(args.folds, exist_ok=True)
    print("%d legs, %d users, %.0f observed labelled minutes" % (len(x), len(set(users)), s.sum() / 60))
    print("%6s %8s %7s %7s %8s" % ("user", "obs_min", "rules", "model", "penalty"))
    rules = rule_classes(rule)
    pooled_rules = pooled_model = 0.0
    for u in sorted(set(users)):
        train, held = users != u, users == u
        penalty = choose_penalty(users[train], x[train], s[train])
        model = fit(x[train], s[train], penalty)
        r = right(rules[held], s[held])
        m = right(gated(predict(model, x[held]), rules[held], x[held], names), s[held])
        total = s[held].sum()
        pooled_rules += r
        pooled_model += m
        print("%6s %8.0f %7.3f %7.3f %8g" % (u, total / 60, r / total if total else 0, m / total if total else 0, penalty))
        if args.folds:
            with open(os.path.join(args.folds, u + ".txt"), "w") as f:
                f.write(text(model, names, penalty, users[train]))
    total = s.sum()
    summary = "rules %.3f, model %.3f" % (pooled_rules / total, pooled_model / total)
    print("pooled held out: " + summary)
    penalty = choose_penalty(users, x, s)
    model = fit(x, s, penalty)
    fitted = right(gated(predict(model, x), rules, x, names), s) / total
    print("final model: penalty %g, fitted accuracy %.3f (not held out)" % (penalty, fitted))
    with open(args.swift, "w") as f:
        f.write(swift(model, names, penalty, users, summary))
    if args.text:
        with open(args.text, "w") as f:
            f.write(text(model, names, penalty, users))
    print("wrote " + os.path.relpath(args.swift))


if __name__ == "__main__":
    sys.exit(main())
