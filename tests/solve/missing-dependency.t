# A dependency no source lists: nothing fits, and the message says who needs it.
target   cuda=cpu python=3.11 platform=manylinux_2_28_x86_64
file     demo-1.0-py3-none-any.whl
dep      demo-1.0-py3-none-any.whl ghost>=1
request  demo
exit     nomatch
message  the catalog has no files for 'ghost'
message  demo 1.0 needs ghost>=1
