package dev.fencedlock.faults;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A server on loopback that speaks just enough RESP to pass for Redis during a client's handshake
 * and then answers what a test tells it to: garbage, a wrong type, half a reply, nothing at all.
 * Every connection runs on a thread of its own. Thread-safe.
 */
final class FakeRedisServer implements AutoCloseable {
    /** Raw bytes to send, or one of the two actions. */
    record Reply(String raw, boolean close, boolean hang) {
        static final Reply CLOSE = new Reply("", true, false);
        static final Reply HANG = new Reply("", false, true);
        static final Reply NOTHING = new Reply("", false, false);

        static Reply of(String raw) {
            return new Reply(raw, false, false);
        }

        static Reply thenClose(String raw) {
            return new Reply(raw, true, false);
        }
    }

    /** What to answer; {@code command} is null when a connection is accepted. */
    @FunctionalInterface
    interface Script {
        Reply answer(List<String> command);
    }

    private final ServerSocket listener;
    private final Script script;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final List<List<String>> received = new CopyOnWriteArrayList<>();
    private volatile boolean closed;

    private FakeRedisServer(Script script) throws IOException {
        this.script = script;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::accept, "fake-redis-" + listener.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    static FakeRedisServer start(Script script) {
        try {
            return new FakeRedisServer(script);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A script that answers the handshake like Redis 7 ({@code HELLO}, {@code CLIENT}, {@code
     * SELECT}, {@code PING}, {@code INFO}, {@code CONFIG}) and leaves every other command to {@code
     * rest}.
     */
    static Script handshakeThen(Script rest) {
        return command -> {
            if (command == null) {
                return Reply.NOTHING;
            }
            String name = command.get(0).toUpperCase(Locale.ROOT);
            return switch (name) {
                case "CLIENT", "SELECT", "AUTH" -> Reply.of("+OK\r\n");
                case "PING" -> Reply.of("+PONG\r\n");
                case "CONFIG" -> Reply.of("*0\r\n"); // as Redis 7 answers CONFIG GET of an unknown name
                case "HELLO" ->
                    Reply.of("*14\r\n$6\r\nserver\r\n$5\r\nredis\r\n$7\r\nversion\r\n$6\r\n7.0.15\r\n"
                            + "$5\r\nproto\r\n:2\r\n$2\r\nid\r\n:7\r\n$4\r\nmode\r\n$10\r\nstandalone\r\n"
                            + "$4\r\nrole\r\n$6\r\nmaster\r\n$7\r\nmodules\r\n*0\r\n");
                case "INFO" ->
                    bulk(
                            command.size() > 1 && command.get(1).equalsIgnoreCase("memory")
                                    ? "# Memory\r\nmaxmemory:0\r\nmaxmemory_policy:noeviction\r\n"
                                    : "# Server\r\nredis_version:7.0.15\r\nrun_id:fakefakefakefakefakefakefakefakefakefake\r\n"
                                            + "uptime_in_seconds:86400\r\n");
                default -> rest.answer(command);
            };
        };
    }

    static Reply bulk(String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        return Reply.of("$" + bytes.length + "\r\n" + text + "\r\n");
    }

    int port() {
        return listener.getLocalPort();
    }

    String uri() {
        return "redis://127.0.0.1:" + port();
    }

    /** Every command received so far, for messages. */
    List<List<String>> received() {
        return List.copyOf(received);
    }

    private void accept() {
        while (!closed) {
            try {
                Socket socket = listener.accept();
                sockets.add(socket);
                Thread connection = new Thread(() -> serve(socket), "fake-redis-connection");
                connection.setDaemon(true);
                connection.start();
            } catch (IOException e) {
                return;
            }
        }
    }

    private void serve(Socket socket) {
        try (socket) {
            InputStream in = new BufferedInputStream(socket.getInputStream());
            OutputStream out = socket.getOutputStream();
            if (!act(script.answer(null), out)) {
                return;
            }
            while (true) {
                List<String> command = readCommand(in);
                if (command == null) {
                    return;
                }
                received.add(command);
                if (!act(script.answer(command), out)) {
                    return;
                }
            }
        } catch (IOException | InterruptedException e) {
            // the client went away, or the server closed
        }
    }

    /** Sends the reply; false if the connection must end. */
    private boolean act(Reply reply, OutputStream out) throws IOException, InterruptedException {
        if (!reply.raw().isEmpty()) {
            out.write(reply.raw().getBytes(StandardCharsets.UTF_8));
            out.flush();
        }
        if (reply.hang()) {
            while (!closed) {
                Thread.sleep(100);
            }
            return false;
        }
        return !reply.close();
    }

    /** Reads one RESP array of bulk strings; null at the end of the stream. */
    private static List<String> readCommand(InputStream in) throws IOException {
        String header = readLine(in);
        if (header == null) {
            return null;
        }
        if (!header.startsWith("*")) {
            return List.of(header);
        }
        int count = Integer.parseInt(header.substring(1));
        List<String> parts = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            String length = readLine(in);
            if (length == null) {
                return null;
            }
            byte[] bytes = in.readNBytes(Integer.parseInt(length.substring(1)) + 2);
            parts.add(new String(bytes, 0, bytes.length - 2, StandardCharsets.UTF_8));
        }
        return parts;
    }

    private static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int previous = -1;
        while (true) {
            int next = in.read();
            if (next < 0) {
                return null;
            }
            if (previous == '\r' && next == '\n') {
                byte[] bytes = line.toByteArray();
                return new String(bytes, 0, bytes.length - 1, StandardCharsets.UTF_8);
            }
            line.write(next);
            previous = next;
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            listener.close();
        } catch (IOException e) {
            // closed
        }
        for (Socket socket : sockets) {
            try {
                socket.close();
            } catch (IOException e) {
                // closed
            }
        }
    }
}
