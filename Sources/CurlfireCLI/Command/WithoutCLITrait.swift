#if !CLI
import Foundation

/// The entry point when the package is built without its `CLI` trait (swift-argument-parser is then
/// not in the graph): says how to build the real command and exits with status 2.
@main
enum WithoutCLITrait {
    static func main() {
        FileHandle.standardError.write(Data("curlfire is built only with the CLI trait: swift run --traits CLI curlfire\n".utf8))
        exit(2)
    }
}
#endif
