# download.pytorch.org publishes no data-requires-python: networkx 3.3's Requires-Python >=3.10
# is only in its METADATA. A Python 3.9 target must get 3.2.1, as pip would insist.
target   cuda=11.8 python=3.9 platform=manylinux_2_28_x86_64
file     cu118/torch-2.1.0%2Bcu118-cp39-cp39-linux_x86_64.whl
file     networkx-3.3-py3-none-any.whl
file     networkx-3.2.1-py3-none-any.whl
dep      cu118/torch-2.1.0%2Bcu118-cp39-cp39-linux_x86_64.whl networkx
metapy   networkx-3.3-py3-none-any.whl >=3.10
metapy   networkx-3.2.1-py3-none-any.whl >=3.9
request  torch
expect   cu118/torch-2.1.0%2Bcu118-cp39-cp39-linux_x86_64.whl
expect   networkx-3.2.1-py3-none-any.whl
reason   networkx 3.3 (its metadata requires Python >=3.10; the target has 3.9)
