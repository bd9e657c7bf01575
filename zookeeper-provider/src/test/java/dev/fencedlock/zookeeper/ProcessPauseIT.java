package dev.fencedlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.Lease;
import dev.fencedlock.testkit.process.ProcessSignals;
import dev.fencedlock.zookeeper.ZooKeeperTestSupport.TestClient;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A holder whose whole process stops (SIGSTOP) for longer than its session timeout, as a long GC
 * pause or a frozen VM would. A paused thread would not do: Curator's heartbeat threads would keep
 * the session alive. The server expires the session and the lock passes on with a larger token.
 *
 * <p>The resumed holder must not believe its lease valid for a moment, not even before Curator has
 * told it anything. To make that moment as long as it can be, the holder holds back every
 * connection-state event (see {@link PausedHolder}) until it has answered whether its lease is
 * valid: the answer must come from the lease's own bound, the session timeout from its last round
 * trip, not from Curator's SUSPENDED or LOST.
 */
class ProcessPauseIT {
    private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(3);
    private static final String LOCK = "paused-holder";

    private TestingServer server;
    private Process holder;
    private PrintWriter toHolder;
    private final BlockingQueue<String> holderLines = new LinkedBlockingQueue<>();
    private final List<String> unread = new ArrayList<>();

    @BeforeEach
    void start() throws Exception {
        server = ZooKeeperTestSupport.startServer();
    }

    @AfterEach
    void stop() throws Exception {
        if (holder != null) {
            ProcessSignals.resume(holder.pid());
            toHolder.close();
            holder.destroyForcibly();
            holder.waitFor(30, TimeUnit.SECONDS);
        }
        server.close();
    }

    @Test
    void holderPausedPastItsSessionSeesItsLeaseInvalidAtOnceWhenItResumes() throws Exception {
        String java = ProcessHandle.current().info().command().orElse("java");
        holder = new ProcessBuilder(
                        java,
                        "-cp",
                        System.getProperty("java.class.path"),
                        PausedHolder.class.getName(),
                        server.getConnectString(),
                        LOCK,
                        SESSION_TIMEOUT.toString())
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        toHolder = new PrintWriter(holder.getOutputStream(), true, StandardCharsets.UTF_8);
        Thread reader = new Thread(this::readHolderOutput, "paused-holder-output");
        reader.setDaemon(true);
        reader.start();
        long pausedToken = Long.parseLong(expectLine("GRANTED ").substring("GRANTED ".length()));
        toHolder.println("HOLD");
        expectLine("HOLDING");

        try (TestClient other = ZooKeeperTestSupport.client(
                ZooKeeperTestSupport.config(server.getConnectString(), Duration.ofSeconds(10)))) {
            assertThat(other.lock(LOCK).tryAcquire(Duration.ZERO))
                    .as("held by the other process")
                    .isEmpty();

            ProcessSignals.stop(holder.pid());
            try (Lease next = other.lock(LOCK).acquire(Duration.ofSeconds(60))) {
                assertThat(next.token()).isGreaterThan(pausedToken);
                ProcessSignals.resume(holder.pid());
                toHolder.println("STATUS");
                assertThat(expectLine("VALID "))
                        .as("the resumed holder's lease, with Curator's events held back")
                        .isEqualTo("VALID false");
                toHolder.println("RELEASE");
                assertThat(expectLine("LOST ")).contains(LOCK);
                assertThat(next.isValid()).isTrue();
            }
        }
    }

    private void readHolderOutput() {
        try (BufferedReader out =
                new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = out.readLine(); line != null; line = out.readLine()) {
                holderLines.add(line);
            }
        } catch (java.io.IOException e) {
            holderLines.add("READ FAILED " + e);
        }
    }

    /** The first line not yet expected that starts with {@code prefix}, waiting for it if need be. */
    private String expectLine(String prefix) throws InterruptedException {
        long deadline = System.nanoTime() + ZooKeeperTestSupport.EVENT_TIMEOUT.toNanos();
        while (true) {
            for (Iterator<String> lines = unread.iterator(); lines.hasNext(); ) {
                String line = lines.next();
                if (line.startsWith(prefix)) {
                    lines.remove();
                    return line;
                }
            }
            String line = holderLines.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
            assertThat(line)
                    .as("holder printed a line starting '%s'; other lines: %s", prefix, unread)
                    .isNotNull();
            unread.add(line);
        }
    }
}
