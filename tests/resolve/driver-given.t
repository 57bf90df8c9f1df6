# --driver gives the driver itself: 470.57.02 runs CUDA 11.4, and 11.x builds past it by
# minor-version compatibility; never a CUDA 12 build.
target   driver=470.57.02 python=3.10 platform=manylinux_2_28_x86_64
file     cu118/torch-2.1.0%2Bcu118-cp310-cp310-linux_x86_64.whl
file     cu121/torch-2.1.0%2Bcu121-cp310-cp310-linux_x86_64.whl
request  torch==2.1.0
expect   cu118/torch-2.1.0%2Bcu118-cp310-cp310-linux_x86_64.whl
reason   by NVIDIA's minor-version compatibility (driver 470.57.02
rejected cu121/torch-2.1.0%2Bcu121-cp310-cp310-linux_x86_64.whl CUDA 12.1 needs driver 530.30.02
