# PyPI's Windows torch is a CPU build: a Windows CUDA target does not get it (it would have no
# CUDA), a Windows CPU target does, without reading its metadata.
target   cuda=12.8 python=3.12 platform=win_amd64
target   cuda=cpu python=3.12 platform=win_amd64
file     torch-2.9.0-cp312-cp312-win_amd64.whl
brokenmeta torch-2.9.0-cp312-cp312-win_amd64.whl
file     cu128/torch-2.9.0%2Bcu128-cp312-cp312-win_amd64.whl
option   no_deps
request  torch
expect   @0 cu128/torch-2.9.0%2Bcu128-cp312-cp312-win_amd64.whl
expect   @1 torch-2.9.0-cp312-cp312-win_amd64.whl
