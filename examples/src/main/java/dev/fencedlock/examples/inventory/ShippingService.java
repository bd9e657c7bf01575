package dev.fencedlock.examples.inventory;

import com.sun.net.httpserver.HttpServer;
import dev.fencedlock.FencingTokenCheck;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The shipping service the inventory example's sales call: its own process, its own database
 * ({@link ShippingDatabase}), a JDK HTTP server on a free loopback port ({@link ShipmentsHandler}).
 * It holds no lock and takes none: it fences each shipment with the token the call presents.
 *
 * <p>As a program ({@link #main}, started by {@link ShippingProcess}) it prints {@value
 * #READY_PREFIX} and its base URL on standard output once it answers, and stops when its standard
 * input ends (the example closed it, or ended). Usage: {@code ShippingService [--threads N]}.
 * Thread-safe; close it once.
 */
public final class ShippingService implements AutoCloseable {
    /** What the program prints, followed by its base URL, once it answers calls. */
    static final String READY_PREFIX = "SHIPPING-READY ";

    /**
     * How long a shipment's transaction waits for its lock's fence row: the starter's default
     * receiver bound.
     */
    static final Duration BOUND = Duration.ofSeconds(30);

    private final ShippingDatabase database;
    private final ExecutorService executor;
    private final HttpServer server;

    private ShippingService(ShippingDatabase database, ExecutorService executor, HttpServer server) {
        this.database = database;
        this.executor = executor;
        this.server = server;
    }

    public static void main(String[] args) throws IOException {
        // the JDK server writes a response's headers and body separately; with Nagle's algorithm on,
        // the body waits for the client's delayed ACK, about 40 ms per call on Linux
        System.setProperty("sun.net.httpserver.nodelay", "true");
        int threads;
        try {
            threads = threads(args);
        } catch (IllegalArgumentException e) {
            System.out.println("error: " + e.getMessage());
            System.exit(2);
            return;
        }
        try (ShippingService service = start(threads)) {
            System.out.println(READY_PREFIX + service.uri());
            System.out.flush();
            while (System.in.read() >= 0) {
                // nothing is sent: the end of the input is the signal to stop
            }
        }
    }

    /**
     * Creates the database and starts answering on a free loopback port, with {@code threads}
     * request threads and as many database connections.
     */
    static ShippingService start(int threads) throws IOException {
        ShippingDatabase database = ShippingDatabase.open(threads, BOUND);
        ExecutorService executor = Executors.newFixedThreadPool(threads);
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
            server.createContext("/", new ShipmentsHandler(database, FencingTokenCheck.defaults(), BOUND));
            server.setExecutor(executor);
            server.start();
            return new ShippingService(database, executor, server);
        } catch (IOException | RuntimeException e) {
            executor.shutdownNow();
            database.close();
            throw e;
        }
    }

    /** The base URL, {@code http://127.0.0.1:<port>}. */
    URI uri() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    @Override
    public void close() {
        try {
            server.stop(0);
        } finally {
            executor.shutdownNow();
            database.close();
        }
    }

    private static int threads(String[] args) {
        if (args.length == 0) {
            return 16;
        }
        if (args.length == 2 && args[0].equals("--threads") && args[1].matches("[1-9][0-9]{0,3}")) {
            return Integer.parseInt(args[1]);
        }
        throw new IllegalArgumentException("usage: ShippingService [--threads N], got " + String.join(" ", args));
    }
}
