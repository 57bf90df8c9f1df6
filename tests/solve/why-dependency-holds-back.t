# torchvision 0.15.0 (asked for) needs torch==2.0.0 while torch 2.1.0 exists and runs: torch's
# why-line says that torchvision's requirement chose the version, not that 2.0.0 is simply the
# newest that runs (issue 36). torch is asked first, so 2.1.0 is tried and given up: that reason
# names the rest of the set, not torch's own dependencies (which are met).
target   cuda=11.8 python=3.10 platform=manylinux_2_28_x86_64
file     cu118/torch-2.1.0%2Bcu118-cp310-cp310-linux_x86_64.whl
file     cu118/torch-2.0.0%2Bcu118-cp310-cp310-linux_x86_64.whl
file     cu118/torchvision-0.16.0%2Bcu118-cp310-cp310-linux_x86_64.whl
file     cu118/torchvision-0.15.0%2Bcu118-cp310-cp310-linux_x86_64.whl
dep      cu118/torchvision-0.16.0%2Bcu118-cp310-cp310-linux_x86_64.whl torch==2.1.0
dep      cu118/torchvision-0.15.0%2Bcu118-cp310-cp310-linux_x86_64.whl torch==2.0.0
request  torch
request  torchvision==0.15.0
expect   cu118/torch-2.0.0%2Bcu118-cp310-cp310-linux_x86_64.whl
expect   cu118/torchvision-0.15.0%2Bcu118-cp310-cp310-linux_x86_64.whl
reason   torch torchvision 0.15.0 requires torch==2.0.0, which rules out newer versions
reason   torch 2.1.0 (what the rest of the set needs rules it out)
