"""The commands' flows (``host``, ``join``, ``watch``, ``verify``, ``analyze``, ``games``…): each picks a front end."""
