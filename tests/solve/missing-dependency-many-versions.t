# One project whose 79 newest versions each need a project no source lists, and whose oldest
# needs nothing: every version is tried, as pip tries them, and the oldest is picked. Giving up a
# version for needing a project known missing is no choice of the search (max_steps does not
# count it), and no run of them cuts the search short. The pick's reason names the first few.
target   cuda=cpu python=3.11 platform=manylinux_2_28_x86_64
file     a-80.0-py3-none-any.whl
file     a-79.0-py3-none-any.whl
file     a-78.0-py3-none-any.whl
file     a-77.0-py3-none-any.whl
file     a-76.0-py3-none-any.whl
file     a-75.0-py3-none-any.whl
file     a-74.0-py3-none-any.whl
file     a-73.0-py3-none-any.whl
file     a-72.0-py3-none-any.whl
file     a-71.0-py3-none-any.whl
file     a-70.0-py3-none-any.whl
file     a-69.0-py3-none-any.whl
file     a-68.0-py3-none-any.whl
file     a-67.0-py3-none-any.whl
file     a-66.0-py3-none-any.whl
file     a-65.0-py3-none-any.whl
file     a-64.0-py3-none-any.whl
file     a-63.0-py3-none-any.whl
file     a-62.0-py3-none-any.whl
file     a-61.0-py3-none-any.whl
file     a-60.0-py3-none-any.whl
file     a-59.0-py3-none-any.whl
file     a-58.0-py3-none-any.whl
file     a-57.0-py3-none-any.whl
file     a-56.0-py3-none-any.whl
file     a-55.0-py3-none-any.whl
file     a-54.0-py3-none-any.whl
file     a-53.0-py3-none-any.whl
file     a-52.0-py3-none-any.whl
file     a-51.0-py3-none-any.whl
file     a-50.0-py3-none-any.whl
file     a-49.0-py3-none-any.whl
file     a-48.0-py3-none-any.whl
file     a-47.0-py3-none-any.whl
file     a-46.0-py3-none-any.whl
file     a-45.0-py3-none-any.whl
file     a-44.0-py3-none-any.whl
file     a-43.0-py3-none-any.whl
file     a-42.0-py3-none-any.whl
file     a-41.0-py3-none-any.whl
file     a-40.0-py3-none-any.whl
file     a-39.0-py3-none-any.whl
file     a-38.0-py3-none-any.whl
file     a-37.0-py3-none-any.whl
file     a-36.0-py3-none-any.whl
file     a-35.0-py3-none-any.whl
file     a-34.0-py3-none-any.whl
file     a-33.0-py3-none-any.whl
file     a-32.0-py3-none-any.whl
file     a-31.0-py3-none-any.whl
file     a-30.0-py3-none-any.whl
file     a-29.0-py3-none-any.whl
file     a-28.0-py3-none-any.whl
file     a-27.0-py3-none-any.whl
file     a-26.0-py3-none-any.whl
file     a-25.0-py3-none-any.whl
file     a-24.0-py3-none-any.whl
file     a-23.0-py3-none-any.whl
file     a-22.0-py3-none-any.whl
file     a-21.0-py3-none-any.whl
file     a-20.0-py3-none-any.whl
file     a-19.0-py3-none-any.whl
file     a-18.0-py3-none-any.whl
file     a-17.0-py3-none-any.whl
file     a-16.0-py3-none-any.whl
file     a-15.0-py3-none-any.whl
file     a-14.0-py3-none-any.whl
file     a-13.0-py3-none-any.whl
file     a-12.0-py3-none-any.whl
file     a-11.0-py3-none-any.whl
file     a-10.0-py3-none-any.whl
file     a-9.0-py3-none-any.whl
file     a-8.0-py3-none-any.whl
file     a-7.0-py3-none-any.whl
file     a-6.0-py3-none-any.whl
file     a-5.0-py3-none-any.whl
file     a-4.0-py3-none-any.whl
file     a-3.0-py3-none-any.whl
file     a-2.0-py3-none-any.whl
file     a-1.0-py3-none-any.whl
file     b-1.0-py3-none-any.whl
dep      a-80.0-py3-none-any.whl ghost>=1
dep      a-79.0-py3-none-any.whl ghost>=1
dep      a-78.0-py3-none-any.whl ghost>=1
dep      a-77.0-py3-none-any.whl ghost>=1
dep      a-76.0-py3-none-any.whl ghost>=1
dep      a-75.0-py3-none-any.whl ghost>=1
dep      a-74.0-py3-none-any.whl ghost>=1
dep      a-73.0-py3-none-any.whl ghost>=1
dep      a-72.0-py3-none-any.whl ghost>=1
dep      a-71.0-py3-none-any.whl ghost>=1
dep      a-70.0-py3-none-any.whl ghost>=1
dep      a-69.0-py3-none-any.whl ghost>=1
dep      a-68.0-py3-none-any.whl ghost>=1
dep      a-67.0-py3-none-any.whl ghost>=1
dep      a-66.0-py3-none-any.whl ghost>=1
dep      a-65.0-py3-none-any.whl ghost>=1
dep      a-64.0-py3-none-any.whl ghost>=1
dep      a-63.0-py3-none-any.whl ghost>=1
dep      a-62.0-py3-none-any.whl ghost>=1
dep      a-61.0-py3-none-any.whl ghost>=1
dep      a-60.0-py3-none-any.whl ghost>=1
dep      a-59.0-py3-none-any.whl ghost>=1
dep      a-58.0-py3-none-any.whl ghost>=1
dep      a-57.0-py3-none-any.whl ghost>=1
dep      a-56.0-py3-none-any.whl ghost>=1
dep      a-55.0-py3-none-any.whl ghost>=1
dep      a-54.0-py3-none-any.whl ghost>=1
dep      a-53.0-py3-none-any.whl ghost>=1
dep      a-52.0-py3-none-any.whl ghost>=1
dep      a-51.0-py3-none-any.whl ghost>=1
dep      a-50.0-py3-none-any.whl ghost>=1
dep      a-49.0-py3-none-any.whl ghost>=1
dep      a-48.0-py3-none-any.whl ghost>=1
dep      a-47.0-py3-none-any.whl ghost>=1
dep      a-46.0-py3-none-any.whl ghost>=1
dep      a-45.0-py3-none-any.whl ghost>=1
dep      a-44.0-py3-none-any.whl ghost>=1
dep      a-43.0-py3-none-any.whl ghost>=1
dep      a-42.0-py3-none-any.whl ghost>=1
dep      a-41.0-py3-none-any.whl ghost>=1
dep      a-40.0-py3-none-any.whl ghost>=1
dep      a-39.0-py3-none-any.whl ghost>=1
dep      a-38.0-py3-none-any.whl ghost>=1
dep      a-37.0-py3-none-any.whl ghost>=1
dep      a-36.0-py3-none-any.whl ghost>=1
dep      a-35.0-py3-none-any.whl ghost>=1
dep      a-34.0-py3-none-any.whl ghost>=1
dep      a-33.0-py3-none-any.whl ghost>=1
dep      a-32.0-py3-none-any.whl ghost>=1
dep      a-31.0-py3-none-any.whl ghost>=1
dep      a-30.0-py3-none-any.whl ghost>=1
dep      a-29.0-py3-none-any.whl ghost>=1
dep      a-28.0-py3-none-any.whl ghost>=1
dep      a-27.0-py3-none-any.whl ghost>=1
dep      a-26.0-py3-none-any.whl ghost>=1
dep      a-25.0-py3-none-any.whl ghost>=1
dep      a-24.0-py3-none-any.whl ghost>=1
dep      a-23.0-py3-none-any.whl ghost>=1
dep      a-22.0-py3-none-any.whl ghost>=1
dep      a-21.0-py3-none-any.whl ghost>=1
dep      a-20.0-py3-none-any.whl ghost>=1
dep      a-19.0-py3-none-any.whl ghost>=1
dep      a-18.0-py3-none-any.whl ghost>=1
dep      a-17.0-py3-none-any.whl ghost>=1
dep      a-16.0-py3-none-any.whl ghost>=1
dep      a-15.0-py3-none-any.whl ghost>=1
dep      a-14.0-py3-none-any.whl ghost>=1
dep      a-13.0-py3-none-any.whl ghost>=1
dep      a-12.0-py3-none-any.whl ghost>=1
dep      a-11.0-py3-none-any.whl ghost>=1
dep      a-10.0-py3-none-any.whl ghost>=1
dep      a-9.0-py3-none-any.whl ghost>=1
dep      a-8.0-py3-none-any.whl ghost>=1
dep      a-7.0-py3-none-any.whl ghost>=1
dep      a-6.0-py3-none-any.whl ghost>=1
dep      a-5.0-py3-none-any.whl ghost>=1
dep      a-4.0-py3-none-any.whl ghost>=1
dep      a-3.0-py3-none-any.whl ghost>=1
dep      a-2.0-py3-none-any.whl ghost>=1
dep      a-1.0-py3-none-any.whl b
option   max_steps=20
request  a
expect   a-1.0-py3-none-any.whl
expect   b-1.0-py3-none-any.whl
reason   a newer versions were given up: 80.0 (
reason   a 79.0 (it needs ghost, of which no version can be had)
reason   a and 63 more
