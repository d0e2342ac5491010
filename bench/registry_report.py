"""The registry bench's report (bench/registry.py): a markdown page, with its targets."""

from bench.matcher import HALVES

FLOOR_SHARE = 0.5  # check_many at least this share of the compiled floor, each half
FLAT = 0.2  # check_many within 20% from the smallest size to the largest (same rounds)
RATE, LAG = 100.0, 1.0  # registrations a second sustained, every reader current within a second
BYTES = 16.0


def _met(ok: bool) -> str:
    return "met" if ok else "**not met**"


def report(rows: list[dict], context: dict, args, seconds: float, machine: str) -> str:
    lines = [
        f"# Registry bench, seed {context['seed']}",
        "",
        f"{context['corpus']}; records: {len(context['work'].records):,} "
        + ", ".join(f"{h} {len(context['halves'][h]):,}" for h in HALVES)
        + f"; {args.readers} readers, registrations at {args.rate:g}/s for {args.seconds:g} s;"
        f" {machine}; allocator: {context['allocator']}; {seconds / 60:.1f} min in all.",
        "",
        "| artifacts | entries | segments | B/shingle (lookup) | B/shingle (files) | build s |"
        " check_many ASCII MB/s | floor ASCII | ratio | check_many non-ASCII MB/s |"
        " floor non-ASCII | ratio | / smallest size, ASCII / non-ASCII |"
        " recall ASCII / non-ASCII | 2 threads / 1 |",
        "|" + "---|" * 15,
    ]
    for row in rows:
        ratios = row["ratio"]
        recall = " / ".join(f"{row[f'{h} recall'][1]:.3f}" for h in HALVES)
        threads = row["two threads"] / row["one thread"]
        flat = " / ".join(f"{row['flat'][h]:.2f}" for h in HALVES) if row["flat"] else "-"
        lines.append(
            f"| {row['size']:,} | {row['entries']:,} | {row['segments']} |"
            f" {row['bytes_a_shingle']:.2f} | {row['file_bytes_a_shingle']:.2f} |"
            f" {row['build']:.1f} | {row['ASCII']:.1f} | {row['floor']['ASCII']:.1f} |"
            f" {ratios['ASCII']:.2f}x | {row['non-ASCII']:.1f} | {row['floor']['non-ASCII']:.1f} |"
            f" {ratios['non-ASCII']:.2f}x | {flat} | {recall} | {threads:.2f}x |"
        )
    lines += [
        "",
        "Registrations while the readers check (in force: the time from the registration call"
        " until the last reader's filter holds it). The readers are forked from the bench"
        " process, whose texts and arrays they share copy-on-write, so their RSS says nothing"
        " of the index; the mapped files' PSS is each one's share of the segments it reads."
        " Refresh: the longest from a reader's look finding the signal moved to the copy in"
        " force:",
        "",
        "| artifacts | registered | rate /s | in force p50 s | p99 s | max s | never |"
        " refresh max s | probe missed | readers' check_many MB/s | files mapped, PSS MB each |",
        "|" + "---|" * 11,
    ]
    for row in rows:
        live = row["live"]
        speeds = ", ".join(f"{v:.1f}" for v in live["reader_mb_per_second"])
        mapped = ", ".join(f"{m.get('Pss_File', 0):.0f}" for m in live["memory"])
        lines.append(
            f"| {row['size']:,} | {live['registrations']} | {live['rate']:.1f} |"
            f" {live['lag_p50']:.3f} | {live['lag_p99']:.3f} | {live['lag_max']:.3f} |"
            f" {live['not_in_force']} | {live.get('refresh_max', 0):.3f} | {live['missed']} |"
            f" {speeds} | {mapped} |"
        )
    lines += ["", "Targets:", ""]
    first, last = rows[0], rows[-1]
    for half in HALVES:
        worst = min(row["ratio"][half] for row in rows)
        lines.append(
            f"- check_many / compiled floor, {half} (best of interleaved rounds each), lowest"
            f" over the sizes: {worst:.2f}x"
            f" (target >= {FLOOR_SHARE}x): {_met(worst >= FLOOR_SHARE)}"
        )
        # measured in the same rounds (a filter of the smallest size kept): minutes apart,
        # the machine's drift moved this ratio by a quarter from run to run
        change = last["flat"][half] if last["flat"] else 1.0
        lines.append(
            f"- check_many {half} at {last['size']:,} / at {first['size']:,}, interleaved:"
            f" {change:.2f} (target within {FLAT:.0%}): {_met(abs(1 - change) <= FLAT)}"
        )
    worst_bytes = max(row["bytes_a_shingle"] for row in rows)
    lines.append(
        f"- bytes a shingle a lookup reads, highest: {worst_bytes:.2f} (target <= {BYTES:g}):"
        f" {_met(worst_bytes <= BYTES)}"
    )
    for row in rows:
        live = row["live"]
        ok = live["rate"] >= RATE * 0.98 and live["lag_max"] <= LAG and not live["not_in_force"]
        lines.append(
            f"- at {row['size']:,}: {live['rate']:.1f} registrations/s sustained, every reader"
            f" current within {live['lag_max']:.3f} s (target {RATE:g}/s within {LAG:g} s):"
            f" {_met(ok)}"
        )
    return "\n".join(lines) + "\n"
