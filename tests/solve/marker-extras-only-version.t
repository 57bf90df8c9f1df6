# When the only version names extras in a Requires-Dist marker, nothing is installed from it:
# an integrity failure that names the marker, not an install of depx.
target   cuda=cpu python=3.10 platform=manylinux_2_28_x86_64
file     a-1.0-py3-none-any.whl
file     depx-1.0-py3-none-any.whl
dep      a-1.0-py3-none-any.whl depx; "a" not in extras
request  a
exit     integrity
message  a 1.0 (a-1.0-py3-none-any.whl) has a Requires-Dist marker wheelpick cannot evaluate: 'depx; "a" not in extras'
