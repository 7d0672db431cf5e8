import HapbridgeCLI

await HapbridgeCommand.runFromCommandLine()
