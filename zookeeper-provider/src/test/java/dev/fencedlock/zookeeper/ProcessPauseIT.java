package dev.fencedlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.Lease;
import dev.fencedlock.zookeeper.ZooKeeperTestSupport.TestClient;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
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
 * the session alive. The server expires the session, the lock passes on with a larger token, and
 * the holder, once resumed, learns that its lease is lost.
 */
class ProcessPauseIT {
    private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(3);
    private static final String LOCK = "paused-holder";

    private TestingServer server;
    private Process holder;
    private final BlockingQueue<String> holderLines = new LinkedBlockingQueue<>();

    @BeforeEach
    void start() throws Exception {
        server = ZooKeeperTestSupport.startServer();
    }

    @AfterEach
    void stop() throws Exception {
        if (holder != null) {
            signal("CONT");
            holder.destroyForcibly();
            holder.waitFor(30, TimeUnit.SECONDS);
        }
        server.close();
    }

    @Test
    void holderPausedPastItsSessionLosesTheLockToALargerTokenAndLearnsOfIt() throws Exception {
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
        Thread reader = new Thread(this::readHolderOutput, "paused-holder-output");
        reader.setDaemon(true);
        reader.start();
        long pausedToken = Long.parseLong(expectLine("GRANTED ").substring("GRANTED ".length()));

        try (TestClient other = ZooKeeperTestSupport.client(
                ZooKeeperTestSupport.config(server.getConnectString(), Duration.ofSeconds(10)))) {
            assertThat(other.lock(LOCK).tryAcquire(Duration.ZERO))
                    .as("held by the other process")
                    .isEmpty();

            signal("STOP");
            try (Lease next = other.lock(LOCK).acquire(Duration.ofSeconds(60))) {
                assertThat(next.token()).isGreaterThan(pausedToken);
                signal("CONT");
                assertThat(expectLine("LOST ")).contains("ZooKeeper connection was");
                try (PrintWriter toHolder = new PrintWriter(holder.getOutputStream(), true, StandardCharsets.UTF_8)) {
                    toHolder.println("STATUS");
                    assertThat(expectLine("VALID ")).isEqualTo("VALID false");
                }
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

    private String expectLine(String prefix) throws InterruptedException {
        long deadline = System.nanoTime() + ZooKeeperTestSupport.EVENT_TIMEOUT.toNanos();
        while (true) {
            String line = holderLines.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
            assertThat(line).as("holder printed a line starting '%s'", prefix).isNotNull();
            if (line.startsWith(prefix)) {
                return line;
            }
        }
    }

    private void signal(String signal) throws Exception {
        Process kill = new ProcessBuilder(List.of("kill", "-" + signal, Long.toString(holder.pid())))
                .inheritIO()
                .start();
        assertThat(kill.waitFor(10, TimeUnit.SECONDS)).isTrue();
    }
}
