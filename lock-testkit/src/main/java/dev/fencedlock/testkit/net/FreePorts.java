package dev.fencedlock.testkit.net;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/**
 * Loopback ports for servers a test starts itself, and ports known to refuse connections. A port
 * is free when asked; another process may take it before the test binds it, which then fails the
 * bind, not the test's checks. Never 6379, which a developer's own Redis may hold. Thread-safe.
 */
public final class FreePorts {
    private static final int DEFAULT_REDIS_PORT = 6379;

    private FreePorts() {}

    /**
     * A loopback port no socket listens on now: bind a server to it, or connect to it to be refused
     * at once.
     *
     * @throws UncheckedIOException if the system gives no port
     */
    public static int loopback() {
        while (true) {
            try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                int port = probe.getLocalPort();
                if (port != DEFAULT_REDIS_PORT) {
                    return port;
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot find a free loopback port", e);
            }
        }
    }
}
