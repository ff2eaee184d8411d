"""The one exception type the command line turns into a sentence and an exit status."""


class UserError(Exception):
    """A problem the user can fix; printed as one sentence, never as a traceback."""
