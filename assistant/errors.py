"""The one exception type for input a user can fix.

Everything that reaches the command line as bad input (a malformed file, an unknown option, a layout that
does not fit) is raised as ``UserError``: the CLI prints its message and exits with code 2, never a traceback.
"""


class UserError(Exception):
    """Bad input from the user: the message says what is wrong and how to fix it."""

    exit_code = 2
