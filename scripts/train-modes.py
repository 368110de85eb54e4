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

Prints, per held-out user, pooled and per user (macro, over the users with observed time), the observed-time 3-class
accuracy over the dumped legs of the rules (the class the rules gave the leg) and of the model trained on the other
users (legs whose fixes are more than a minute apart keep the rules' class, as in the pass), and the per-user spread.
The penalty is chosen, in each fold and for the final model, by an inner leave-one-user-out on (pooled + macro) / 2.

Simulated GPS loggers as training truth (issue 23, docs/PASSES.md "Learned modes that learn walks too"): give more
CSVs, e.g. `evaluate --profile logger --seeds 1-10 --days 4 --people 2 --set trips.mode_model=0 --dump-leg-features
/tmp/sim.csv` (user sim-SEED, true leg seconds per class); their legs are in every fold's training set, weighing
--sim-weight × the GeoLife legs' observed time in total, and the folds and figures stay the GeoLife users'.

Development options (issue 23, docs/PASSES.md "Modes on people never seen"): --weighting user gives every user the
same total weight; --drop keeps features from the model (their weights are written as 0); --penalty fixes the penalty
(no inner choice: quick); --no-write prints the figures only. The defaults are the shipped procedure. Writes the model trained on all users into
Sources/TriplinePasses/Learned/ModeModel.swift; with --folds DIR, also each fold's model as DIR/USER.txt (the text
form `evaluate --mode-model DIR` reads, so that each user is rebuilt and scored end to end with the model that never
saw it); with --text FILE, the final model in that form.
"""
import argparse
import os
import sys

import numpy as np

from stumps import with_end

CLASSES = ["foot", "bicycle", "motorised"]
PENALTIES = [1e-4, 1e-3, 1e-2, 1e-1, 1.0]
# --model stumps: (rounds, rate) chosen by the inner leave-one-user-out, as the penalty is for the linear model.
STUMP_CHOICES = [(50, 0.1), (100, 0.1), (200, 0.1), (50, 0.3), (100, 0.3), (200, 0.3)]
# Features the model may be kept from (--drop; their weights are then written as 0): those that could describe one
# user's logger or habits rather than how a leg moved — the fix interval is the logger's setting, duration and path
# length are raw sums that follow one user's commute. Leave-one-user-out says they carry what transfers (issue 23,
# docs/PASSES.md "Learned modes": dropping them lowers held-out pooled and macro accuracy), so none is dropped.
DROPPED = []
MAX_FIX_INTERVAL_S = 60  # ModeFeatures.learnedMaxFixIntervalS
HERE = os.path.dirname(os.path.abspath(__file__))
SWIFT = os.path.join(HERE, "..", "Sources", "TriplinePasses", "Learned", "ModeModel.swift")


def read(paths):
    header, rows = None, []
    for path in paths:
        with open(path) as f:
            h = f.readline().strip().split(",")
            if header is not None and h != header:
                sys.exit("%s: not the columns of %s" % (path, paths[0]))
            header = h
            rows += [line.rstrip("\n").split(",") for line in f if line.strip()]
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


def user_weights(users, s, balance):
    """Each leg's weight factor: 1 (time-weighted: a user with many hours weighs more), or, with `balance`, the same
    total weight for every user (each user's legs scaled by the mean observed time per user ÷ that user's time), so
    that the heavy users (115, 153, 112 hold half the minutes) do not decide the boundary for everyone."""
    if not balance:
        return np.ones(len(users))
    per = {u: s[users == u].sum() for u in set(users)}
    mean = sum(per.values()) / len(per)
    return np.array([mean / per[u] if per[u] > 0 else 0.0 for u in users])


def fit(x, s, penalty, factor=None, mask=None):
    """Newton's method on the time-weighted cross-entropy (per observed hour) + penalty/2 |W|² (bias not penalised).
    `factor`: each leg's weight factor (``user_weights``); `mask`: the features used (the others get weight 0)."""
    mean, scale = standardise(x)
    zfull = (x - mean) / scale
    if mask is None:
        mask = np.ones(x.shape[1], dtype=bool)
    z = np.hstack([np.ones((len(x), 1)), zfull[:, mask]])
    n, d = z.shape
    k = len(CLASSES)
    if factor is not None:
        s = s * factor[:, None]
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
    full = np.zeros((x.shape[1] + 1, k))
    full[0] = w[0]
    full[1:][mask] = w[1:]
    return mean, scale, full


# MARK: boosted stumps (--model stumps)

def stump_splits(x):
    """Each feature's candidate splits: its 2nd..98th percentiles (as scripts/stumps.py), each moved up to halfway to
    the next larger value of the feature, which splits the training legs the same way but puts no boundary on a
    value itself: the dump rounds features to six decimals and the pass does not (a fix every second is log 2 =
    0.69314718… in the pass, 0.693147 in the dump)."""
    out = []
    for j in range(x.shape[1]):
        values = np.unique(x[:, j])
        cuts = np.unique(np.quantile(x[:, j], np.linspace(0.02, 0.98, 49)))
        above = np.searchsorted(values, cuts, side="right")
        cuts = [(c + values[a]) / 2 if a < len(values) else c for c, a in zip(cuts, above)]
        out.append(np.unique(cuts))
    return out


def fit_stumps(x, s, rounds, rate, l2=1.0):
    """Softmax gradient boosting: each round, one stump per class (the split of most gain on that class's gradient,
    Newton leaf values shrunk by `rate`), each leg weighed by its observed labelled hours and aiming at its share of
    time per class. Deterministic (ties: the first feature, then the first split). Returns (base per class, stumps
    [(class, feature, split, left, right)] in training order)."""
    hours = s.sum(axis=1) / 3600.0
    keep = hours > 0
    x, s, hours = x[keep], s[keep], hours[keep]
    y = s / s.sum(axis=1, keepdims=True)
    n, d = x.shape
    k = len(CLASSES)
    prior = (s.sum(axis=0) + 1) / (s.sum() + k)
    base = np.log(prior)
    base -= base.mean()
    f = np.tile(base, (n, 1))
    splits = stump_splits(x)
    bins = [np.searchsorted(splits[j], x[:, j], side="left") for j in range(d)]  # x <= splits[j][b] iff bin <= b
    feature_of = np.concatenate([np.full(len(splits[j]), j) for j in range(d)])
    split_of = np.concatenate(splits)
    stumps = []
    for _ in range(rounds):
        p = np.exp(f - f.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        g, h = hours[:, None] * (p - y), hours[:, None] * p * (1 - p)
        gt, ht = g.sum(axis=0), h.sum(axis=0)
        for c in range(k):
            gl = np.concatenate([np.cumsum(np.bincount(bins[j], g[:, c], len(splits[j]) + 1))[:len(splits[j])] for j in range(d)])
            hl = np.concatenate([np.cumsum(np.bincount(bins[j], h[:, c], len(splits[j]) + 1))[:len(splits[j])] for j in range(d)])
            gain = gl ** 2 / (hl + l2) + (gt[c] - gl) ** 2 / (ht[c] - hl + l2)
            b = int(np.flatnonzero(gain >= gain.max() - 1e-12)[0])
            left = -gl[b] / (hl[b] + l2) * rate
            right = -(gt[c] - gl[b]) / (ht[c] - hl[b] + l2) * rate
            j = int(feature_of[b])
            f[:, c] += np.where(x[:, j] <= split_of[b], left, right)
            stumps.append((c, j, float(split_of[b]), float(left), float(right)))
    return base, stumps


def predict_stumps(model, x, rounds=None):
    """The class of each row; with `rounds`, of the ensemble's first `rounds` rounds only."""
    base, stumps = model
    f = np.tile(base, (len(x), 1))
    for c, j, split, left, right in stumps[:None if rounds is None else rounds * len(CLASSES)]:
        f[:, c] += np.where(x[:, j] <= split, left, right)
    return np.argmax(f, axis=1)


def choose_stumps(users, x, s, rules, names):
    """The (rounds, rate) of STUMP_CHOICES with the best held-out (pooled + macro) / 2 by leave-one-user-out over
    `users` (one fit of the most rounds per rate; fewer rounds are its first rounds)."""
    pred = {c: np.zeros(len(x), dtype=int) for c in STUMP_CHOICES}
    most = max(r for r, _ in STUMP_CHOICES)
    for u in sorted(set(users)):
        train = users != u
        for rate in sorted(set(rt for _, rt in STUMP_CHOICES)):
            model = fit_stumps(x[train], s[train], most, rate)
            for r, rt in STUMP_CHOICES:
                if rt == rate:
                    pred[(r, rt)][~train] = gated(predict_stumps(model, x[~train], r), rules[~train], x[~train], names)
    best, best_value = None, -1.0
    for c in STUMP_CHOICES:
        value = sum(score(pred[c], s, users)) / 2
        if value > best_value + 1e-9:
            best, best_value = c, value
    return best


def stump_text(model, names, choice, users):
    base, stumps = model
    out = ["# tripline learned mode model (scripts/train-modes.py): softmax-boosted stumps, %d rounds, rate %g" % choice,
           "# trained on GeoLife users " + " ".join(sorted(set(users))),
           "features " + " ".join(names),
           "base " + " ".join("%r" % float(v) for v in base)]
    out += ["stump %s %s %r %r %r" % (CLASSES[c], names[j], split, left, right) for c, j, split, left, right in stumps]
    return with_end(out)


def stump_swift(model, names, choice, users, folds, fixed):
    base, stumps = model
    how = "given by --stumps %d,%g" % choice if fixed else "chosen by an inner leave-one-user-out"
    lines = [
        "// Generated by scripts/train-modes.py --model stumps: do not edit. The learned mode model (docs/PASSES.md,",
        "// \"Learned modes\"): softmax-boosted stumps (foot, bicycle, motorised) over ModeFeatures, %d rounds, rate %g" % choice,
        "// (%s); trained on the legs of the GeoLife development users" % how,
        "// " + " ".join(sorted(set(users))) + ".",
        "// Held out (leave-one-user-out%s, observed-time 3-class over the dumped legs): " % (
            ", every fold with these rounds and rate" if fixed else "") + folds + ".",
        "",
        "extension ModeModel {",
        "    /// The model trained on every development user: base per class, then (class, feature, split, left, right).",
        "    public static let shipped = ModeModel(",
        "        bias: [" + ", ".join("%r" % float(v) for v in base) + "],",
        "        stumps: [",
    ]
    lines += ["            .init(%d, %d, %r, %r, %r),  // %s %s" % (c, j, split, left, right, CLASSES[c], names[j])
              for c, j, split, left, right in stumps]
    lines += ["        ])", "}", ""]
    return "\n".join(lines)


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


def score(pred, s, users):
    """Pooled and per-user (macro) observed-time accuracy of `pred`."""
    pooled = right(pred, s) / s.sum()
    per = [right(pred[users == u], s[users == u]) / s[users == u].sum() for u in sorted(set(users)) if s[users == u].sum() > 0]
    return pooled, float(np.mean(per))


def choose_penalty(users, x, s, rules, names, balance, mask):
    """The penalty with the best held-out (pooled + macro) / 2 accuracy by leave-one-user-out over `users`."""
    best, best_value = PENALTIES[0], -1.0
    factor = user_weights(users, s, balance)
    for penalty in PENALTIES:
        pred = np.zeros(len(x), dtype=int)
        geo = ~is_sim(users)
        for u in sorted(set(users[geo])):
            train = users != u
            model = fit(x[train], s[train], penalty, factor[train], mask)
            pred[~train] = gated(predict(model, x[~train]), rules[~train], x[~train], names)
        value = sum(score(pred[geo], s[geo], users[geo])) / 2
        if value > best_value + 1e-9:
            best, best_value = penalty, value
    return best


def trained_on(users, geolife="GeoLife users "):
    """Who the model was trained on: the GeoLife users, then the simulated runs (sim-SEED) if any."""
    sim = is_sim(users)
    out = geolife + " ".join(sorted(set(users[~sim])))
    if sim.any():
        seeds = sorted(int(u[4:]) for u in set(users[sim]))
        out += " and simulated GPS loggers' seeds " + " ".join(str(v) for v in seeds)
    return out


def text(model, names, penalty, users):
    mean, scale, w = model
    f = lambda v: "%.9g" % v
    out = ["# tripline learned mode model (scripts/train-modes.py): multinomial logistic regression, L2 %g, %s" % (penalty, SETUP),
           "# trained on " + trained_on(users),
           "features " + " ".join(names),
           "mean " + " ".join(f(v) for v in mean),
           "scale " + " ".join(f(v) for v in scale)]
    for c, name in enumerate(CLASSES):
        out.append(name + " " + " ".join(f(v) for v in w[:, c]))
    return with_end(out)


def swift(model, names, penalty, users, folds):
    mean, scale, w = model
    f = lambda v: "%.9g" % v
    row = lambda vs: "[" + ", ".join(f(v) for v in vs) + "]"
    lines = [
        "// Generated by scripts/train-modes.py: do not edit. The learned mode model (docs/PASSES.md, \"Learned modes\"):",
        "// multinomial logistic regression (foot, bicycle, motorised) over ModeFeatures, L2 penalty %g chosen by" % penalty,
        "// leave-one-user-out; %s;" % SETUP,
        "// trained on the legs of the " + trained_on(users, "GeoLife development users\n// ") + ".",
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


SETUP = ""


def is_sim(users):
    """Rows of simulated runs (`evaluate --seeds … --dump-leg-features`: user sim-SEED, true leg seconds)."""
    return np.array([u.startswith("sim-") for u in users], dtype=bool)


def sim_scaled(users, s, weight):
    """`s` with the simulated rows' seconds scaled so that their total is `weight` × the GeoLife rows' total."""
    sim = is_sim(users)
    if not sim.any():
        return s
    s = s.copy()
    s[sim] *= weight * s[~sim].sum() / s[sim].sum()
    return s


def main():
    global SETUP
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("legs", nargs="+", help="CSV from evaluate --dump-leg-features (several: their rows together)")
    parser.add_argument("--sim-weight", type=float, default=1.0,
                        help="rows of simulated runs (user sim-SEED, from evaluate --seeds … --dump-leg-features): their "
                             "true seconds scaled so that their total is this × the GeoLife rows' observed labelled total "
                             "(default %(default)s). They are always trained on; the folds and the figures are the GeoLife users'")
    parser.add_argument("--folds", help="write each fold's model as DIR/USER.txt")
    parser.add_argument("--text", help="write the final model's text form to FILE")
    parser.add_argument("--swift", default=SWIFT, help="the generated Swift file (default: %(default)s)")
    parser.add_argument("--weighting", choices=["user", "time"], default="time",
                        help="time: each observed second the same weight (default); user: every user the same total weight")
    parser.add_argument("--drop", default=",".join(DROPPED),
                        help="features the model is not given, comma-separated (default: %(default)s; '' for none)")
    parser.add_argument("--no-write", action="store_true", help="print the figures only (no Swift, no text)")
    parser.add_argument("--model", choices=["linear", "stumps"], default="linear",
                        help="linear: the multinomial logistic regression (default); stumps: softmax-boosted stumps")
    parser.add_argument("--stumps", help="with --model stumps: ROUNDS,RATE in every fold and for the final model instead of "
                        "choosing them by an inner leave-one-user-out")
    parser.add_argument("--only", help="with --model stumps (development, to run folds in parallel): hold out only these "
                        "users (comma-separated); prints and writes their folds, no final model")
    parser.add_argument("--penalty", type=float,
                        help="use this L2 penalty in every fold and for the final model instead of choosing it by an inner "
                             "leave-one-user-out (quicker: the nested choice is what the held-out figures report)")
    args = parser.parse_args()
    names, users, rule, x, s = read(args.legs)
    sim = is_sim(users)
    if args.model == "stumps":
        if sim.any():
            parser.error("--model stumps: simulated rows (sim-SEED) are for the linear model only")
        return main_stumps(args, names, users, rule, x, s)
    s = sim_scaled(users, s, args.sim_weight)
    dropped = [f for f in args.drop.split(",") if f]
    for f in dropped:
        if f not in names:
            parser.error("--drop: no feature %s" % f)
    mask = np.array([n not in dropped for n in names])
    balance = args.weighting == "user"
    SETUP = "%s-weighted, %s" % ("user" if balance else "time", "without " + " ".join(dropped) if dropped else "all features")
    if sim.any():
        SETUP += ", with %d simulated logger runs' legs weighing %g x GeoLife's time" % (len(set(users[sim])), args.sim_weight)
    if args.folds:
        os.makedirs(args.folds, exist_ok=True)
    if sim.any():
        print("%d legs (%d simulated), %d GeoLife users, %.0f observed labelled minutes (+ %.0f simulated, as weighted); %s" % (
            len(x), sim.sum(), len(set(users[~sim])), s[~sim].sum() / 60, s[sim].sum() / 60, SETUP))
    else:
        print("%d legs, %d users, %.0f observed labelled minutes; %s" % (len(x), len(set(users)), s.sum() / 60, SETUP))
    print("%6s %8s %7s %7s %8s" % ("user", "obs_min", "rules", "model", "penalty"))
    rules = rule_classes(rule)
    held_pred = np.zeros(len(x), dtype=int)
    for u in sorted(set(users[~sim])):
        train, held = users != u, users == u
        penalty = args.penalty or choose_penalty(users[train], x[train], s[train], rules[train], names, balance, mask)
        factor = user_weights(users[train], s[train], balance)
        model = fit(x[train], s[train], penalty, factor, mask)
        held_pred[held] = gated(predict(model, x[held]), rules[held], x[held], names)
        r = right(rules[held], s[held])
        m = right(held_pred[held], s[held])
        total = s[held].sum()
        print("%6s %8.0f %7.3f %7.3f %8g" % (u, total / 60, r / total if total else 0, m / total if total else 0, penalty))
        if args.folds and not args.no_write:
            with open(os.path.join(args.folds, u + ".txt"), "w") as f:
                f.write(text(model, names, penalty, users[train]))
    geo = ~sim  # the figures are the GeoLife users' (the simulated legs are always trained on)
    rp, rm = score(rules[geo], s[geo], users[geo])
    mp, mm = score(held_pred[geo], s[geo], users[geo])
    per = [right(held_pred[users == u], s[users == u]) / s[users == u].sum() for u in sorted(set(users[geo])) if s[users == u].sum() > 0]
    summary = "rules %.3f pooled / %.3f macro, model %.3f / %.3f" % (rp, rm, mp, mm)
    print("held out: " + summary)
    print("per-user spread (model): min %.3f, p25 %.3f, median %.3f, sd %.3f" % (
        min(per), np.percentile(per, 25), np.median(per), np.std(per)))
    if args.no_write:
        return 0
    penalty = args.penalty or choose_penalty(users, x, s, rules, names, balance, mask)
    model = fit(x, s, penalty, user_weights(users, s, balance), mask)
    fitted = right(gated(predict(model, x[geo]), rules[geo], x[geo], names), s[geo]) / s[geo].sum()
    print("final model: penalty %g, fitted accuracy %.3f (not held out)" % (penalty, fitted))
    with open(args.swift, "w") as f:
        f.write(swift(model, names, penalty, users, summary))
    if args.text:
        with open(args.text, "w") as f:
            f.write(text(model, names, penalty, users))
    print("wrote " + os.path.relpath(args.swift))


def main_stumps(args, names, users, rule, x, s):
    """--model stumps: the same leave-one-user-out, folds and outputs as the linear model."""
    fixed = None
    if args.stumps:
        r, rate = args.stumps.split(",")
        fixed = (int(r), float(rate))
    if args.folds:
        os.makedirs(args.folds, exist_ok=True)
    print("%d legs, %d users, %.0f observed labelled minutes; softmax-boosted stumps" % (len(x), len(set(users)), s.sum() / 60))
    print("%6s %8s %7s %7s %8s" % ("user", "obs_min", "rules", "model", "choice"))
    rules = rule_classes(rule)
    held_pred = np.zeros(len(x), dtype=int)
    only = set(args.only.split(",")) if args.only else None
    for u in sorted(set(users)):
        if only is not None and u not in only:
            continue
        train, held = users != u, users == u
        choice = fixed or choose_stumps(users[train], x[train], s[train], rules[train], names)
        model = fit_stumps(x[train], s[train], *choice)
        held_pred[held] = gated(predict_stumps(model, x[held]), rules[held], x[held], names)
        total = s[held].sum()
        r, m = right(rules[held], s[held]), right(held_pred[held], s[held])
        print("%6s %8.0f %7.3f %7.3f %8s" % (u, total / 60, r / total if total else 0, m / total if total else 0,
                                            "%d,%g" % choice), flush=True)
        if args.folds and not args.no_write:
            with open(os.path.join(args.folds, u + ".txt"), "w") as f:
                f.write(stump_text(model, names, choice, users[train]))
    if only is not None:
        return 0
    rp, rm = score(rules, s, users)
    mp, mm = score(held_pred, s, users)
    per = [right(held_pred[users == u], s[users == u]) / s[users == u].sum() for u in sorted(set(users)) if s[users == u].sum() > 0]
    summary = "rules %.3f pooled / %.3f macro, model %.3f / %.3f" % (rp, rm, mp, mm)
    print("held out: " + summary)
    print("per-user spread (model): min %.3f, p25 %.3f, median %.3f, sd %.3f" % (
        min(per), np.percentile(per, 25), np.median(per), np.std(per)))
    if args.no_write:
        return 0
    choice = fixed or choose_stumps(users, x, s, rules, names)
    model = fit_stumps(x, s, *choice)
    print("final model: %d rounds, rate %g" % choice)
    with open(args.swift, "w") as f:
        f.write(stump_swift(model, names, choice, users, summary, fixed is not None))
    if args.text:
        with open(args.text, "w") as f:
            f.write(stump_text(model, names, choice, users))
    print("wrote " + os.path.relpath(args.swift))
    return 0


if __name__ == "__main__":
    sys.exit(main())
