# A constraint binds what was asked for too; when they cannot both hold, the message names it.
target   cuda=11.8 python=3.10 platform=manylinux_2_28_x86_64
file     cu118/torch-2.1.0%2Bcu118-cp310-cp310-linux_x86_64.whl
file     cu118/torch-2.0.0%2Bcu118-cp310-cp310-linux_x86_64.whl
constraint torch<2.0
request  torch==2.1.0
exit     nomatch
message  the constraints (-c) hold torch to <2.0
