package dev.fencedlock.zookeeper;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy in front of a ZooKeeper server that can hold back all traffic in both directions
 * without closing any connection: to the client, a server that stopped answering (a long GC pause,
 * an overloaded disk); to the server, a client that went quiet. Requests sent while the proxy is
 * stalled are delivered, in order, once it resumes. Counts the connections it accepted, so that a
 * test can tell whether the client had to reconnect.
 */
final class StallingProxy implements AutoCloseable {
    private final ServerSocket listener;
    private final int targetPort;
    private final AtomicInteger accepted = new AtomicInteger();
    private final List<Socket> sockets = new ArrayList<>();
    private volatile CountDownLatch open = new CountDownLatch(0);

    StallingProxy(int targetPort) throws IOException {
        this.targetPort = targetPort;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        daemon("stalling-proxy-accept", this::acceptLoop).start();
    }

    String connectString() {
        return "127.0.0.1:" + listener.getLocalPort();
    }

    /** How many client connections the proxy has accepted so far. */
    int acceptedConnections() {
        return accepted.get();
    }

    /** From now on, nothing passes until {@link #resume()}. */
    void stall() {
        open = new CountDownLatch(1);
    }

    void resume() {
        open.countDown();
    }

    @Override
    public void close() throws IOException {
        resume();
        listener.close();
        synchronized (sockets) {
            for (Socket socket : sockets) {
                socket.close();
            }
        }
    }

    private void acceptLoop() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                Socket server = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                accepted.incrementAndGet();
                synchronized (sockets) {
                    sockets.add(client);
                    sockets.add(server);
                }
                daemon("stalling-proxy-up", () -> pump(client, server)).start();
                daemon("stalling-proxy-down", () -> pump(server, client)).start();
            } catch (IOException e) {
                // listener closed, or the server refused: the client sees a failed connection
            }
        }
    }

    private void pump(Socket from, Socket to) {
        byte[] buffer = new byte[8192];
        try (InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream()) {
            for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                awaitOpen();
                out.write(buffer, 0, n);
                out.flush();
            }
        } catch (IOException e) {
            // one side closed; close the other below
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    private void awaitOpen() {
        boolean interrupted = false;
        while (true) {
            try {
                open.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // already closed
        }
    }

    private static Thread daemon(String name, Runnable body) {
        Thread thread = new Thread(body, name);
        thread.setDaemon(true);
        return thread;
    }
}
