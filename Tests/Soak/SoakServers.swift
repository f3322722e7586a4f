import CurlfireTestSupport
import Foundation

/// The servers the soak talks to: httpbin and nginx (scripts/test-servers.py) and the fault server
/// (scripts/fault-server.py), all on loopback and all stopped when this process exits.
struct SoakServers: Sendable {
    let httpbin: URL
    let nginx: URL
    let fault: URL

    private struct ServersJSON: Decodable {
        let httpbin: String
        let nginx_http: String?
    }

    /// Reads `serversJSON`, or starts the servers with this process as their owner.
    static func start(options: SoakOptions) throws -> SoakServers {
        let scripts = options.repository.appendingPathComponent("scripts")
        let data: Data
        if let path = options.serversJSON {
            guard let contents = FileManager.default.contents(atPath: path) else { throw SoakFailure("cannot read \(path)") }
            data = contents
        } else {
            let state = options.repository.appendingPathComponent(".testservers").path
            let result = try Subprocess.run(["python3", scripts.appendingPathComponent("test-servers.py").path, "start",
                                             "--state-dir", state, "--parent-pid", String(getpid()), "--nginx"])
            guard result.status == 0 else { throw SoakFailure("test-servers.py start failed (\(result.status)): \(result.text)") }
            data = result.output
        }
        let servers = try JSONDecoder().decode(ServersJSON.self, from: data)
        guard let httpbin = URL(string: servers.httpbin), let nginxText = servers.nginx_http, let nginx = URL(string: nginxText)
        else { throw SoakFailure("servers.json lacks httpbin or nginx_http") }
        return SoakServers(httpbin: httpbin, nginx: nginx, fault: try startFaultServer(scripts: scripts))
    }

    /// Starts fault-server.py (HTTP only) and reads its port. The server closes every inherited
    /// descriptor and exits when this process does (`--parent-pid`).
    private static func startFaultServer(scripts: URL) throws -> URL {
        let ports: [String: Int]
        do {
            ports = try BackgroundProcess.startFaultServer(script: scripts.appendingPathComponent("fault-server.py")).ports
        } catch {
            throw SoakFailure("\(error)")
        }
        guard let port = ports["http"], let url = URL(string: "http://127.0.0.1:\(port)") else {
            throw SoakFailure("fault-server.py gave no HTTP port")
        }
        return url
    }
}
