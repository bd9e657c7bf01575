package dev.fencedlock.zookeeper;

import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * A lock holder in its own JVM, for {@link ProcessPauseIT}. Arguments: connect string, lock name,
 * session timeout. Prints {@code GRANTED <token>} once it holds the lock and {@code LOST} when the
 * lease is reported lost; answers each {@code STATUS} line on stdin with {@code VALID <boolean>};
 * exits when stdin closes.
 */
public final class PausedHolder {
    private PausedHolder() {}

    public static void main(String[] args) throws Exception {
        LockConfig config = LockConfig.builder()
                .backend(ZooKeeperProviderFactory.BACKEND)
                .zookeeperConnect(args[0])
                .zookeeperSessionTimeout(Duration.parse(args[2]))
                .build();
        try (LockClient client = LockClient.create(config);
                Lease lease = client.lock(args[1]).acquire(Duration.ofSeconds(30));
                BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            lease.onLost((l, cause) -> say("LOST " + cause.getMessage()));
            say("GRANTED " + lease.token());
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                if (line.equals("STATUS")) {
                    say("VALID " + lease.isValid());
                }
            }
        }
    }

    private static synchronized void say(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
