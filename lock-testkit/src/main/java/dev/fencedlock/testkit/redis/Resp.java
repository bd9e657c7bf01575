package dev.fencedlock.testkit.redis;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLSocketFactory;

/**
 * A minimal RESP2 client for test set-up: one short-lived connection per call, no pooling. Kept
 * free of any Redis client library so that the harness can check readiness and clean servers
 * without depending on what a provider under test uses.
 */
final class Resp {
    private static final int TIMEOUT_MILLIS = 5_000;

    private Resp() {}

    /**
     * Sends {@code commands} on one connection and returns the last reply, after authenticating
     * with {@code auth} (user and password, or only a password; empty for none).
     *
     * @throws RedisCommandException if any reply is an error
     * @throws IOException if the server cannot be reached
     */
    static Object call(String host, int port, SSLSocketFactory tls, List<String> auth, List<List<String>> commands)
            throws IOException {
        try (Socket socket = open(host, port, tls)) {
            OutputStream out = socket.getOutputStream();
            InputStream in = new BufferedInputStream(socket.getInputStream());
            List<List<String>> all = new ArrayList<>();
            if (!auth.isEmpty()) {
                List<String> authCommand = new ArrayList<>();
                authCommand.add("AUTH");
                authCommand.addAll(auth);
                all.add(authCommand);
            }
            all.addAll(commands);
            for (List<String> command : all) {
                write(out, command);
            }
            out.flush();
            Object last = null;
            for (List<String> command : all) {
                last = read(in);
                if (last instanceof RedisCommandException error) {
                    throw new RedisCommandException(command.get(0) + " failed: " + error.getMessage());
                }
            }
            return last;
        }
    }

    private static Socket open(String host, int port, SSLSocketFactory tls) throws IOException {
        Socket plain = new Socket();
        plain.connect(new InetSocketAddress(host, port), TIMEOUT_MILLIS);
        plain.setSoTimeout(TIMEOUT_MILLIS);
        if (tls == null) {
            return plain;
        }
        return tls.createSocket(plain, host, port, true);
    }

    private static void write(OutputStream out, List<String> command) throws IOException {
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        buffer.writeBytes(("*" + command.size() + "\r\n").getBytes(StandardCharsets.UTF_8));
        for (String argument : command) {
            byte[] bytes = argument.getBytes(StandardCharsets.UTF_8);
            buffer.writeBytes(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.UTF_8));
            buffer.writeBytes(bytes);
            buffer.writeBytes("\r\n".getBytes(StandardCharsets.UTF_8));
        }
        out.write(buffer.toByteArray());
    }

    /** Reads one reply; an error reply is returned (not thrown) so that pipelined replies stay in step. */
    private static Object read(InputStream in) throws IOException {
        int type = in.read();
        if (type < 0) {
            throw new IOException("connection closed by the server");
        }
        String line = readLine(in);
        switch (type) {
            case '+':
                return line;
            case '-':
                return new RedisCommandException(line);
            case ':':
                return Long.parseLong(line);
            case '$': {
                int length = Integer.parseInt(line);
                if (length < 0) {
                    return null;
                }
                byte[] bytes = in.readNBytes(length + 2);
                return new String(bytes, 0, length, StandardCharsets.UTF_8);
            }
            case '*': {
                int count = Integer.parseInt(line);
                if (count < 0) {
                    return null;
                }
                List<Object> items = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    items.add(read(in));
                }
                return items;
            }
            default:
                throw new IOException("unexpected RESP type byte " + (char) type);
        }
    }

    private static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int previous = -1;
        while (true) {
            int next = in.read();
            if (next < 0) {
                throw new IOException("connection closed in the middle of a reply");
            }
            if (previous == '\r' && next == '\n') {
                byte[] bytes = line.toByteArray();
                return new String(bytes, 0, bytes.length - 1, StandardCharsets.UTF_8);
            }
            line.write(next);
            previous = next;
        }
    }
}
