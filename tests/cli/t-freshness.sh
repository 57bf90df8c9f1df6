#!/usr/bin/env bash
# tests/cli/t-freshness.sh: a page asked for again and found unchanged (304, or the same bytes)
# counts as fetched now, so the next pick inside --max-age (WHEELPICK_MAX_AGE) does not ask again.
# Before, a page older than the limit was asked for on every run once it had been unchanged once.
. "$(dirname "$0")/../lib.sh"
make_sample
start_server "$SAMPLE"
export WHEELPICK_CATALOG="$TMP/fresh.sqlite3"
PAGE="$BASE/simple/torchvision/"
T=(--cuda 11.2 --python 3.8 --platform linux_x86_64 --no-deps --dry-run)
expect_eq() { if [ "$2" = "$3" ]; then pass "$1"; else fail "$1: got '$2', wanted '$3'"; fi; }
asked() { grep -c '"path":"/simple/torchvision/"' "$TMP/server.log"; }
age_out() { sqlite3 "$WHEELPICK_CATALOG" "UPDATE sources SET fetched_at = fetched_at - 7200 WHERE url = '$1'"; }
fetched_at() { sqlite3 "$WHEELPICK_CATALOG" "SELECT fetched_at FROM sources WHERE url = '$1'"; }

expect_exit 0 "first update" wp update --index "$PAGE"
n0=$(asked)
expect_exit 0 "a pick inside the hour does not ask" wp torchvision==0.9.0 "${T[@]}" --index "$PAGE"
expect_eq "no request" "$(asked)" "$n0"

# an hour and more later: asked again (with validators), found unchanged, and the time is new
age_out "$PAGE"
old=$(fetched_at "$PAGE")
expect_exit 0 "a pick two hours later asks" wp -v torchvision==0.9.0 "${T[@]}" --index "$PAGE"
expect_eq "one request" "$(asked)" "$((n0 + 1))"
expect_grep "found unchanged" "unchanged $PAGE" "$TMP/err"
new=$(fetched_at "$PAGE")
[ -n "$new" ] && [ "$new" -gt "$old" ] && pass "fetched_at moved to now ($old -> $new)" || fail "fetched_at '$old' -> '$new'"
expect_exit 0 "and the next pick does not ask again" wp torchvision==0.9.0 "${T[@]}" --index "$PAGE"
expect_eq "still one request" "$(asked)" "$((n0 + 1))"

# a local page read again with the same bytes (no validators there) counts the same way
LOCAL="$FINDLINKS"
expect_exit 0 "a local page" wp update --index "$LOCAL"
age_out "$LOCAL"
old=$(fetched_at "$LOCAL")
expect_exit 0 "read again, the same bytes" wp -v torch==1.8.0 "${T[@]}" --index "$LOCAL"
expect_grep "unchanged" "unchanged $LOCAL" "$TMP/err"
new=$(fetched_at "$LOCAL")
[ -n "$new" ] && [ "$new" -gt "$old" ] && pass "a local page's fetched_at moved to now" || fail "local fetched_at '$old' -> '$new'"

# --max-age 0 (and --refresh) still ask every time
expect_exit 0 "WHEELPICK_MAX_AGE=0 asks" env WHEELPICK_MAX_AGE=0 "$WHEELPICK" torchvision==0.9.0 "${T[@]}" --index "$PAGE"
expect_eq "asked" "$(asked)" "$((n0 + 2))"
done_testing
