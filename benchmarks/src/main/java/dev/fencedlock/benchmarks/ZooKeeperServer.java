package dev.fencedlock.benchmarks;

import java.io.IOException;
import java.util.concurrent.CountDownLatch;
import org.apache.curator.test.TestingServer;

/**
 * A standalone ZooKeeper server for {@code run.sh}, in its own JVM so that its threads and GC do
 * not share a heap with the benchmark. Prints {@code connect=host:port} once it accepts clients and
 * runs until the process is terminated; the shutdown hook stops the server and deletes its data.
 *
 * <pre>java -cp benchmarks.jar dev.fencedlock.benchmarks.ZooKeeperServer [port]</pre>
 */
public final class ZooKeeperServer {
    private ZooKeeperServer() {}

    public static void main(String[] args) throws Exception {
        int port = args.length > 0 ? Integer.parseInt(args[0]) : -1; // -1: TestingServer picks a free port
        TestingServer server = new TestingServer(port, true);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                server.close();
            } catch (IOException e) {
                System.err.println("ZooKeeper server did not close cleanly: " + e);
            }
        }));
        System.out.println("connect=" + server.getConnectString());
        System.out.flush();
        new CountDownLatch(1).await();
    }
}
