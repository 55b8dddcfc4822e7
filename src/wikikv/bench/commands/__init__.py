"""The ``wikikv bench <name>`` commands, one module per benchmark. The CLI lists them in
:data:`wikikv.interfaces.commands.lazy.BENCH_COMMANDS` and imports one only when it runs."""
