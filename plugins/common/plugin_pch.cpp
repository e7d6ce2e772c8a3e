// Compiled only to build the precompiled header the plugin components reuse (plugins/CMakeLists.txt).
