package dev.fencedlock.zookeeper;

import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.listen.StandardListenerManager;
import org.apache.curator.framework.state.ConnectionStateListener;

/**
 * A lock holder in its own JVM, for {@link ProcessPauseIT}. Arguments: connect string, lock name,
 * session timeout. Prints {@code GRANTED <token>} once it holds the lock (an auto-renewing lease
 * with a 60 s lease time) and {@code LOST <reason>} when the lease is reported lost. Reads
 * commands on stdin, one a line, and exits when stdin closes:
 *
 * <ul>
 *   <li>{@code HOLD} holds back every connection-state event (SUSPENDED, LOST, ...) from the lock
 *       client, as a busy Curator event thread would, and answers {@code HOLDING};
 *   <li>{@code STATUS} answers {@code VALID <lease.isValid()>};
 *   <li>{@code RELEASE} lets the held-back events through.
 * </ul>
 *
 * <p>The lock client runs on a Curator client built here as the provider factory builds its own,
 * plus the listener manager that can hold events back.
 */
public final class PausedHolder {
    private static volatile CountDownLatch eventGate = new CountDownLatch(0);

    private PausedHolder() {}

    public static void main(String[] args) throws Exception {
        LockConfig config = LockConfig.builder()
                .backend(ZooKeeperLocks.BACKEND)
                .leaseTime(Duration.ofSeconds(60))
                .build();
        try (CuratorFramework curator = ZooKeeperProviderFactory.curatorBuilder(
                        args[0], (int) Duration.parse(args[2]).toMillis())
                .connectionStateListenerManagerFactory(
                        client -> StandardListenerManager.mappingStandard(PausedHolder::gated))
                .build()) {
            curator.start();
            try (LockClient client = ZooKeeperLocks.create(config, curator);
                    Lease lease = client.lock(args[1]).acquire(Duration.ofSeconds(30));
                    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                lease.onLost((l, cause) -> say("LOST " + cause.getMessage()));
                say("GRANTED " + lease.token());
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    switch (line) {
                        case "HOLD" -> {
                            eventGate = new CountDownLatch(1);
                            say("HOLDING");
                        }
                        case "STATUS" -> say("VALID " + lease.isValid());
                        case "RELEASE" -> eventGate.countDown();
                        default -> say("UNKNOWN " + line);
                    }
                }
            }
        }
    }

    private static ConnectionStateListener gated(ConnectionStateListener listener) {
        return (client, newState) -> {
            try {
                eventGate.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            listener.stateChanged(client, newState);
        };
    }

    private static synchronized void say(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
