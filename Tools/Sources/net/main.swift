import Foundation
import NetCLI

exit(await NetCommand.run(Array(CommandLine.arguments.dropFirst())))
