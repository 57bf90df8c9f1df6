# An extra asked for brings the dependencies its marker names; others stay out.
target   cuda=cpu python=3.11 platform=manylinux_2_28_x86_64
file     demo-1.0-py3-none-any.whl
file     requests-2.31.0-py3-none-any.whl
file     rich-13.0.0-py3-none-any.whl
dep      demo-1.0-py3-none-any.whl requests>=2; extra == "http"
dep      demo-1.0-py3-none-any.whl rich; extra == "pretty"
request  demo[http]
expect   demo-1.0-py3-none-any.whl
expect   requests-2.31.0-py3-none-any.whl
