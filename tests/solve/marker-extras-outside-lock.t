# extras is a lock-file field: in Requires-Dist it is "an error except when defined by the
# context", and such a marker "SHOULD render a package version ineligible" (dependency
# specifiers, revised 2026-01-10). a 2.0 is given up and 1.0 taken; not "depx, always".
target   cuda=cpu python=3.10 platform=manylinux_2_28_x86_64
file     a-2.0-py3-none-any.whl
file     a-1.0-py3-none-any.whl
file     depx-1.0-py3-none-any.whl
dep      a-2.0-py3-none-any.whl depx; "a" not in extras
request  a
expect   a-1.0-py3-none-any.whl
reason   a newer versions were given up: 2.0 (a Requires-Dist marker cannot be evaluated)
