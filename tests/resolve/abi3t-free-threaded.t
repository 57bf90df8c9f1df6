# PEP 803: a free-threaded 3.15t takes an abi3t wheel wherever a GIL build takes abi3; the
# compressed abi3.abi3t tag set fits it by its abi3t member.
target   cuda=cpu python=3.15t platform=win_amd64
file     ft/ft-1.0-cp315-abi3.abi3t-win_amd64.whl
request  ft==1.0
expect   ft/ft-1.0-cp315-abi3.abi3t-win_amd64.whl
