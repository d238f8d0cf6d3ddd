package sandbox

// LauncherArg is the hidden first argument that turns the murmur-eval
// binary into the subprocess launcher.
const LauncherArg = "__murmur-eval-launch"
