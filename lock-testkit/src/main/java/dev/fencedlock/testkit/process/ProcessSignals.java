package dev.fencedlock.testkit.process;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * POSIX signals to one process, always by its own pid: how tests freeze a server or a client JVM
 * the way a long GC pause, swapping or a stopped VM would. A stopped process keeps its sockets open
 * and answers nothing, sends no heartbeat and renews nothing; unlike a paused thread, none of its
 * timers fire either. Uses the {@code kill} command, so it works on Linux and macOS.
 *
 * <p>Stateless and thread-safe.
 */
public final class ProcessSignals {
    private static final long KILL_COMMAND_TIMEOUT_SECONDS = 10;

    private ProcessSignals() {}

    /** Freezes the process (SIGSTOP); {@link #resume} thaws it. */
    public static void stop(long pid) {
        send("STOP", pid);
    }

    /** Thaws a {@link #stop stopped} process (SIGCONT). */
    public static void resume(long pid) {
        send("CONT", pid);
    }

    /**
     * Sends {@code signal} (a name without the {@code SIG} prefix, e.g. {@code TERM}, {@code KILL})
     * to {@code pid}.
     *
     * @throws IllegalArgumentException if {@code signal} is not an upper-case name or {@code pid} is
     *     not positive
     * @throws IllegalStateException if {@code kill} fails (no such process, not permitted) or does not
     *     finish within 10 s; the message carries its output
     */
    public static void send(String signal, long pid) {
        if (signal == null || !signal.matches("[A-Z][A-Z0-9]*")) {
            throw new IllegalArgumentException("signal must be a name like STOP or CONT, got '" + signal + "'");
        }
        if (pid <= 0) {
            throw new IllegalArgumentException("pid must be positive, got " + pid);
        }
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid))
                    .redirectErrorStream(true)
                    .start();
            String output = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!kill.waitFor(KILL_COMMAND_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                kill.destroyForcibly();
                throw new IllegalStateException("kill -" + signal + " " + pid + " did not finish");
            }
            if (kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + signal + " " + pid + " failed: " + output.trim());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run kill -" + signal + " " + pid, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while sending SIG" + signal + " to " + pid, e);
        }
    }
}
