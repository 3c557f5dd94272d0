"""The exceptions the package raises."""


class AclnnError(RuntimeError):
    """An aclnn call returned a non-zero status.

    Attributes: `status` (the aclnn status code, e.g. 161002 for an invalid
    argument), `api` (the C function that failed) and `message` (the text of
    aclGetRecentErrMsg() recorded by that call, which names the argument).
    """

    def __init__(self, status, api, message):
        self.status, self.api, self.message = int(status), api, message
        super().__init__(f"{api} returned {status}: {message}")


class LibraryNotFoundError(OSError):
    """libascendcl.so could not be found or loaded (the message lists where we looked)."""


class OperatorUnavailableError(NotImplementedError):
    """The loaded library does not export this operator (yet).

    Raised at call time, before anything is computed; `aclnn_cpu.has_operator`
    asks the same question without raising.
    """
