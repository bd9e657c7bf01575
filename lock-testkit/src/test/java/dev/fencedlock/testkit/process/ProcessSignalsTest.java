package dev.fencedlock.testkit.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.testkit.await.Await;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Signals to a real child process, its state read from {@code /proc} (Linux). */
class ProcessSignalsTest {
    private static final Duration BOUND = Duration.ofSeconds(30);

    private Process child;

    @BeforeEach
    void startChild() throws IOException {
        child = new ProcessBuilder("sleep", "600").start();
    }

    @AfterEach
    void killChild() throws InterruptedException {
        child.destroyForcibly();
        child.waitFor(10, TimeUnit.SECONDS);
    }

    /** The state letter of {@code /proc/<pid>/stat}: T when stopped, S when sleeping. */
    private static String state(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            return stat.substring(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
        } catch (IOException e) {
            return "gone: " + e;
        }
    }

    @Test
    void stopFreezesAndResumeThawsTheProcess() throws InterruptedException {
        long pid = child.pid();
        ProcessSignals.stop(pid);
        Await.value("process stopped", BOUND, () -> state(pid), "T"::equals);
        ProcessSignals.resume(pid);
        Await.value("process running again", BOUND, () -> state(pid), s -> !s.equals("T"));
        assertThat(child.isAlive()).isTrue();
    }

    @Test
    void killEndsEvenAStoppedProcess() throws InterruptedException {
        ProcessSignals.stop(child.pid());
        ProcessSignals.send("KILL", child.pid());
        assertThat(child.waitFor(BOUND.toSeconds(), TimeUnit.SECONDS)).isTrue();
        assertThat(child.exitValue()).isEqualTo(128 + 9);
    }

    @Test
    void aSignalToNoProcessFailsWithKillsOutput() throws InterruptedException {
        child.destroyForcibly();
        child.waitFor(10, TimeUnit.SECONDS);
        assertThatThrownBy(() -> ProcessSignals.stop(child.pid()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("kill -STOP " + child.pid() + " failed");
    }

    @Test
    void badArgumentsAreRefusedWithTheirValue() {
        assertThatThrownBy(() -> ProcessSignals.send("-9", 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'-9'");
        assertThatThrownBy(() -> ProcessSignals.send("STOP", 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("pid must be positive, got 0");
    }
}
