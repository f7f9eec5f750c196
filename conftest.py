# pytester drives the plugin's own tests; it must be enabled from the root conftest.
pytest_plugins = ["pytester"]
