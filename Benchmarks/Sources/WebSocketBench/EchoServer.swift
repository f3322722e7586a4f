import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

/// A WebSocket echo server on swift-nio (loopback, port 0), the common peer of both clients: every
/// data frame comes back as it came (fragments included), pings are answered, a close is echoed.
/// Written on NIO rather than Python so that the server is not what is measured.
enum EchoServer {
    /// Starts the server on `group`; returns its port.
    static func start(on group: EventLoopGroup) throws -> Int {
        let upgrader = NIOWebSocketServerUpgrader(
            maxFrameSize: 1 << 24, automaticErrorHandling: true,
            shouldUpgrade: { channel, _ in channel.eventLoop.makeSucceededFuture(HTTPHeaders()) },
            upgradePipelineHandler: { channel, _ in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(EchoHandler()) }
            })
        let channel = try ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.pipeline.configureHTTPServerPipeline(withServerUpgrade: (upgraders: [upgrader], completionHandler: { _ in }))
            }
            .bind(host: "127.0.0.1", port: 0).wait()
        return channel.localAddress?.port ?? 0
    }
}

/// Echoes frames on one upgraded connection.
private final class EchoHandler: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .text, .binary, .continuation:
            context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: frame.fin, opcode: frame.opcode, data: frame.unmaskedData)),
                                  promise: nil)
        case .ping:
            context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)), promise: nil)
        case .connectionClose:
            var data = frame.unmaskedData
            let code = data.readSlice(length: min(2, data.readableBytes)) ?? context.channel.allocator.buffer(capacity: 0)
            context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: code)), promise: nil)
            context.close(promise: nil)
        default:
            break
        }
    }
}
