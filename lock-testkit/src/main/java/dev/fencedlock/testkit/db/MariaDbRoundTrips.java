package dev.fencedlock.testkit.db;

import java.io.FilterInputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import javax.net.SocketFactory;

/**
 * Counts the round trips MariaDB Connector/J makes on the calling thread: each time the thread,
 * having sent bytes to the server, reads again (a driver sends a request, or several pipelined
 * ones, then waits for what comes back). Requests that expect no answer (closing a prepared
 * statement, quitting) are not round trips and are not counted until a read follows them.
 *
 * <p>Only connections made through {@link Sockets} are seen: name it as the driver's {@code
 * socketFactory} property ({@link #SOCKET_FACTORY} is the value), as {@link TestDatabase}'s MariaDB
 * pools do. Counts of actions run at the same time on other threads are kept apart by thread;
 * outside {@link #of} the sockets count nothing.
 */
public final class MariaDbRoundTrips {
    /** The driver property's value that makes its connections countable. */
    public static final String SOCKET_FACTORY = Sockets.class.getName();

    private static final ThreadLocal<Count> COUNTING = new ThreadLocal<>();

    private MariaDbRoundTrips() {}

    /** An action that may throw. */
    @FunctionalInterface
    public interface Action {
        void run() throws Exception;
    }

    /** The round trips this thread makes on countable connections while {@code action} runs. */
    public static int of(Action action) throws Exception {
        Count count = new Count();
        Count outer = COUNTING.get();
        COUNTING.set(count);
        try {
            action.run();
        } finally {
            if (outer == null) {
                COUNTING.remove();
            } else {
                COUNTING.set(outer);
            }
        }
        return count.trips;
    }

    /** What one {@link #of} has seen on this thread. */
    private static final class Count {
        int trips;
        /** The socket whose bytes were sent last and not yet answered by a read. */
        Socket sent;
    }

    private static void wrote(Socket socket) {
        Count count = COUNTING.get();
        if (count != null) {
            count.sent = socket;
        }
    }

    private static void reading(Socket socket) {
        Count count = COUNTING.get();
        if (count != null && count.sent == socket) {
            count.sent = null;
            count.trips++;
        }
    }

    /**
     * The socket factory the driver instantiates (public, with a public no-argument constructor):
     * plain TCP sockets whose streams report sends and reads to {@link MariaDbRoundTrips}.
     */
    public static final class Sockets extends SocketFactory {
        @Override
        public Socket createSocket() {
            return new CountingSocket();
        }

        @Override
        public Socket createSocket(String host, int port) throws IOException {
            return connected(new InetSocketAddress(host, port), null);
        }

        @Override
        public Socket createSocket(String host, int port, InetAddress localHost, int localPort) throws IOException {
            return connected(new InetSocketAddress(host, port), new InetSocketAddress(localHost, localPort));
        }

        @Override
        public Socket createSocket(InetAddress host, int port) throws IOException {
            return connected(new InetSocketAddress(host, port), null);
        }

        @Override
        public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort)
                throws IOException {
            return connected(new InetSocketAddress(address, port), new InetSocketAddress(localAddress, localPort));
        }

        private static Socket connected(InetSocketAddress remote, InetSocketAddress local) throws IOException {
            Socket socket = new CountingSocket();
            if (local != null) {
                socket.bind(local);
            }
            socket.connect(remote);
            return socket;
        }
    }

    private static final class CountingSocket extends Socket {
        private InputStream counted;
        private OutputStream counting;

        @Override
        public synchronized InputStream getInputStream() throws IOException {
            if (counted == null) {
                Socket socket = this;
                counted = new FilterInputStream(super.getInputStream()) {
                    @Override
                    public int read() throws IOException {
                        reading(socket);
                        return super.read();
                    }

                    @Override
                    public int read(byte[] bytes, int offset, int length) throws IOException {
                        reading(socket);
                        return super.read(bytes, offset, length);
                    }
                };
            }
            return counted;
        }

        @Override
        public synchronized OutputStream getOutputStream() throws IOException {
            if (counting == null) {
                Socket socket = this;
                counting = new FilterOutputStream(super.getOutputStream()) {
                    @Override
                    public void write(int b) throws IOException {
                        wrote(socket);
                        super.write(b);
                    }

                    @Override
                    public void write(byte[] bytes, int offset, int length) throws IOException {
                        wrote(socket);
                        // the stream's own, not FilterOutputStream's byte by byte
                        out.write(bytes, offset, length);
                    }
                };
            }
            return counting;
        }
    }
}
