package dev.fencedlock.testkit.net;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy on loopback between a client and one server, whose behaviour a test switches while
 * traffic flows. This machine has neither netem nor iptables, so slow and partitioned links are made
 * here.
 *
 * <ul>
 *   <li>{@link #pass()}: bytes go through at once.
 *   <li>{@link #delayReplies(Duration)}: bytes from the server reach the client only {@code delay}
 *       after they left the server; requests go through at once, so the server acts on a request
 *       long before its reply arrives (a slow network on the way back, or a reply queued behind
 *       others).
 *   <li>{@link #blackhole()}: a partition. Connections stay open and new ones are accepted, but no
 *       byte moves in either direction; what was sent is held and delivered, in order, once the
 *       partition heals, as TCP retransmission would.
 *   <li>{@link #reset()}: every connection is closed at once and new ones are closed as soon as
 *       they are accepted, as a node whose host refuses connections.
 * </ul>
 *
 * <p>Byte order within a connection is always kept, also across mode changes. Thread-safe: modes
 * may be switched from any thread. Each connection uses four daemon threads.
 */
public final class TcpProxy implements AutoCloseable {
    private static final AtomicInteger PROXIES = new AtomicInteger();

    private enum Kind {
        PASS,
        DELAY,
        BLACKHOLE,
        RESET
    }

    private final String targetHost;
    private final int targetPort;
    private final ServerSocket listener;
    private final String name;
    private final Set<Link> links = ConcurrentHashMap.newKeySet();
    private final AtomicInteger accepted = new AtomicInteger();
    private final Object monitor = new Object();
    private Kind kind = Kind.PASS; // guarded by monitor
    private long delayNanos; // guarded by monitor
    private volatile boolean closed;

    private TcpProxy(String targetHost, int targetPort) throws IOException {
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.name = "proxy-" + PROXIES.incrementAndGet() + "-" + listener.getLocalPort() + "-to-" + targetPort;
        Thread acceptor = new Thread(this::acceptLoop, name + "-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** Starts a proxy on a free loopback port, in {@link #pass()} mode, to {@code host:port}. */
    public static TcpProxy start(String targetHost, int targetPort) {
        try {
            return new TcpProxy(targetHost, targetPort);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open a proxy port", e);
        }
    }

    /** The loopback port clients connect to. */
    public int port() {
        return listener.getLocalPort();
    }

    public void pass() {
        switchTo(Kind.PASS, 0);
    }

    /**
     * @throws IllegalArgumentException if {@code delay} is negative
     */
    public void delayReplies(Duration delay) {
        if (delay.isNegative()) {
            throw new IllegalArgumentException("delay must not be negative, got " + delay);
        }
        switchTo(Kind.DELAY, delay.toNanos());
    }

    public void blackhole() {
        switchTo(Kind.BLACKHOLE, 0);
    }

    public void reset() {
        switchTo(Kind.RESET, 0);
        for (Link link : links) {
            link.close();
        }
    }

    /**
     * How many client connections the proxy has linked to the server so far, e.g. to tell whether a
     * client had to reconnect. Connections refused in {@link #reset()} mode do not count.
     */
    public int acceptedConnections() {
        return accepted.get();
    }

    /** The current mode, e.g. {@code delay 300ms}. */
    public String mode() {
        synchronized (monitor) {
            return kind == Kind.DELAY
                    ? "delay " + delayNanos / 1_000_000 + "ms"
                    : kind.name().toLowerCase();
        }
    }

    private void switchTo(Kind next, long nanos) {
        synchronized (monitor) {
            kind = next;
            delayNanos = nanos;
            monitor.notifyAll();
        }
    }

    private void acceptLoop() {
        while (!closed) {
            Socket client;
            try {
                client = listener.accept();
            } catch (IOException e) {
                return;
            }
            boolean refuse;
            synchronized (monitor) {
                refuse = kind == Kind.RESET;
            }
            if (refuse) {
                closeQuietly(client);
                continue;
            }
            Socket server = new Socket();
            try {
                // each chunk goes on as soon as its turn comes: no Nagle wait for the other side's ACK
                client.setTcpNoDelay(true);
                server.setTcpNoDelay(true);
                server.connect(new InetSocketAddress(targetHost, targetPort), 5_000);
            } catch (IOException e) {
                closeQuietly(server);
                closeQuietly(client);
                continue;
            }
            accepted.incrementAndGet();
            Link link = new Link(client, server);
            links.add(link);
            link.start();
        }
    }

    @Override
    public void close() {
        closed = true;
        closeQuietly(listener);
        synchronized (monitor) {
            monitor.notifyAll();
        }
        for (Link link : links) {
            link.close();
        }
    }

    @Override
    public String toString() {
        return name + "[" + mode() + "]";
    }

    private static void closeQuietly(AutoCloseable closeable) {
        try {
            closeable.close();
        } catch (Exception e) {
            // already closed
        }
    }

    /** One proxied connection: a pump each way. */
    private final class Link {
        private final Socket client;
        private final Socket server;

        Link(Socket client, Socket server) {
            this.client = client;
            this.server = server;
        }

        void start() {
            new Pump(client, server, false, this).start("up");
            new Pump(server, client, true, this).start("down");
        }

        void close() {
            links.remove(this);
            closeQuietly(client);
            closeQuietly(server);
        }
    }

    /** Chunk of bytes read at {@code readAtNanos}; an empty array marks the end of the stream. */
    private record Chunk(byte[] bytes, long readAtNanos) {}

    /** Reads one side into a queue; writes the queue to the other side as the mode allows. */
    private final class Pump {
        private final Socket from;
        private final Socket to;
        private final boolean replies;
        private final Link link;
        private final BlockingQueue<Chunk> queue = new LinkedBlockingQueue<>();

        Pump(Socket from, Socket to, boolean replies, Link link) {
            this.from = from;
            this.to = to;
            this.replies = replies;
            this.link = link;
        }

        void start(String direction) {
            Thread reader = new Thread(this::read, name + "-" + direction + "-read");
            Thread writer = new Thread(this::write, name + "-" + direction + "-write");
            reader.setDaemon(true);
            writer.setDaemon(true);
            reader.start();
            writer.start();
        }

        private void read() {
            byte[] buffer = new byte[16 * 1024];
            try (InputStream in = from.getInputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    queue.add(new Chunk(Arrays.copyOf(buffer, n), System.nanoTime()));
                }
            } catch (IOException e) {
                // the connection was closed; fall through to the end marker
            }
            queue.add(new Chunk(new byte[0], System.nanoTime()));
        }

        private void write() {
            try {
                OutputStream out = to.getOutputStream();
                while (true) {
                    Chunk chunk = queue.take();
                    if (chunk.bytes().length == 0 || !awaitTurn(chunk)) {
                        break;
                    }
                    out.write(chunk.bytes());
                    out.flush();
                }
            } catch (IOException e) {
                // the other side went away
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            link.close();
        }

        /** Waits until the mode lets {@code chunk} through; false if the link must close instead. */
        private boolean awaitTurn(Chunk chunk) throws InterruptedException {
            synchronized (monitor) {
                while (true) {
                    if (closed || kind == Kind.RESET) {
                        return false;
                    }
                    long wait;
                    if (kind == Kind.BLACKHOLE) {
                        wait = Long.MAX_VALUE;
                    } else if (kind == Kind.DELAY && replies) {
                        wait = chunk.readAtNanos() + delayNanos - System.nanoTime();
                    } else {
                        wait = 0;
                    }
                    if (wait <= 0) {
                        return true;
                    }
                    if (wait == Long.MAX_VALUE) {
                        monitor.wait();
                    } else {
                        monitor.wait(Math.max(1, wait / 1_000_000), (int) (wait % 1_000_000));
                    }
                }
            }
        }
    }
}
