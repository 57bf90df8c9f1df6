# A dependency by URL is not the index's to satisfy: that version is given up, with the reason,
# rather than quietly taking the index's file of the same name.
target   cuda=cpu python=3.11 platform=manylinux_2_28_x86_64
file     demo-2.0-py3-none-any.whl
file     demo-1.0-py3-none-any.whl
file     helper-1.0-py3-none-any.whl
dep      demo-2.0-py3-none-any.whl helper @ https://evil.example/helper-1.0-py3-none-any.whl
dep      demo-1.0-py3-none-any.whl helper
request  demo
expect   demo-1.0-py3-none-any.whl
expect   helper-1.0-py3-none-any.whl
reason   demo 2.0 (it needs a file by URL)
