# No silent substitution (issue 39): the cu121 build re-published with other bytes is the one
# that fits; the pick stops there rather than hand out cu118 in its place.
target   cuda=12.4 python=3.11 platform=linux_x86_64
file     torch-2.5.1%2Bcpu-cp311-cp311-linux_x86_64.whl
file     torch-2.5.1%2Bcu118-cp311-cp311-linux_x86_64.whl
file     torch-2.5.1%2Bcu121-cp311-cp311-linux_x86_64.whl conflict
file     torch-2.5.0%2Bcu121-cp311-cp311-linux_x86_64.whl
request  torch
expect   none
message  torch 2.5.1+cu121 is the build that fits
message  now has sha256 1111111111111111111111111111111111111111111111111111111111111111 where 2222222222222222222222222222222222222222222222222222222222222222 was trusted first
message  no other build is taken in its place
