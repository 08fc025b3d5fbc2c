#!/bin/sh
# Used by `git bisect run`: exit 0 = good, 1 = bad, 125 = cannot test (skip).
# Usage: bisect-check.sh <build command> -- <test command>
# Example: bisect-check.sh make -- python -m pytest -q tests/test_parser.py::test_dates

build=""
while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do
    build="$build $1"
    shift
done
[ "$1" = "--" ] && shift

if [ -n "$build" ]; then
    sh -c "$build" >/dev/null 2>&1 || exit 125
fi

"$@"
status=$?
# git bisect treats 125 as "skip" and codes above 127 as "abort"; keep the test's
# own failures inside 1..124.
if [ "$status" -eq 0 ]; then
    exit 0
elif [ "$status" -ge 125 ]; then
    exit 1
fi
exit "$status"
