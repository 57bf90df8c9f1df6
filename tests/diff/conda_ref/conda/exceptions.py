# tests/diff/conda_ref/conda/exceptions.py: a stand-in for conda's exceptions module, written for
# wheelpick's tests (not conda's code): the one name conda/models/version.py imports.
class InvalidVersionSpec(ValueError):
    def __init__(self, invalid_spec, details):
        super().__init__("Invalid version '%s': %s" % (invalid_spec, details))
