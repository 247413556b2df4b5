"""The programs (the `tablewatch` command, live, demo, replay/e2e, bench, export): the only code that may import every layer."""
