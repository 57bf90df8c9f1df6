# The real PEP 503 page of October 2023 (absolute hrefs, sha256 fragments).
target   cuda=12.2 python=3.11 platform=manylinux_2_28_x86_64
simple   pytorch_index/whl_simple_2023-10-13/torch/index.html
request  torch==2.1.0
expect   cu121/torch-2.1.0%2Bcu121-cp311-cp311-linux_x86_64.whl
