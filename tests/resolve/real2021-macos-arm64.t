# The real 1.8.0 arm64 wheel is tagged macosx_11_1, which packaging's ladder never yields
# (from macOS 11 on, only X_0 tags count), so pip would not install it either.
target    cuda=cpu python=3.8 platform=macosx_12_0_arm64
findlinks pytorch_index/torch_stable_2021-03-12.html
request   torch==1.8.0
expect    none
message   no wheel fits Python 3.8 on macosx_12_0_arm64
