package dev.fencedlock.faults.process;

import dev.fencedlock.faults.db.DatabaseSettings;
import dev.fencedlock.faults.history.History;
import dev.fencedlock.testkit.process.ProcessSignals;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The test's handle on one {@link PausableClient} process: started with the test's own classpath,
 * driven line by line, stopped and continued with {@code kill -STOP} / {@code kill -CONT} on its own
 * pid, and always killed (SIGKILL, by pid) by {@link #close()}. Its standard error goes to a file
 * next to its history, for diagnosis. Used from one test thread.
 */
public final class ClientProcess implements AutoCloseable {
    private final Process process;
    private final BufferedWriter commands;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final Path history;
    private final Path log;

    private ClientProcess(Process process, Path history, Path log) {
        this.process = process;
        this.history = history;
        this.log = log;
        this.commands = new BufferedWriter(new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8));
        Thread reader = new Thread(this::readLines, "client-" + process.pid() + "-stdout");
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Starts a client and waits until it is ready.
     *
     * @param directory where its history and log go
     * @param lockSettings {@code fencedlock.*} keys and values for its lock client
     * @throws IllegalStateException if it does not report ready within {@code startupTimeout}
     */
    public static ClientProcess start(
            String client,
            Path directory,
            DatabaseSettings database,
            Map<String, String> lockSettings,
            Duration wait,
            Duration lossWait,
            Duration startupTimeout)
            throws IOException, InterruptedException {
        Files.createDirectories(directory);
        Path history = directory.resolve(client + ".history");
        Path log = directory.resolve(client + ".log");
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                System.getProperty("java.class.path"),
                PausableClient.class.getName(),
                "--client",
                client,
                "--history",
                history.toString(),
                "--wait",
                wait.toMillis() + "ms",
                "--loss-wait",
                lossWait.toMillis() + "ms",
                "--db-url",
                database.jdbcUrl(),
                "--db-user",
                database.user()));
        lockSettings.forEach((key, value) -> command.add(key + "=" + value));
        ProcessBuilder builder = new ProcessBuilder(command).redirectError(log.toFile());
        builder.environment().put(PausableClient.PASSWORD_VARIABLE, database.password());
        ClientProcess started = new ClientProcess(builder.start(), history, log);
        try {
            started.expect("READY", startupTimeout);
        } catch (RuntimeException | InterruptedException e) {
            started.close();
            throw e;
        }
        return started;
    }

    private void readLines() {
        try (BufferedReader in =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                lines.add(line);
            }
        } catch (IOException e) {
            // the process is gone; expect() reports it
        }
    }

    public long pid() {
        return process.pid();
    }

    /** Sends one command line. */
    public void send(String line) {
        try {
            commands.write(line);
            commands.newLine();
            commands.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("client " + pid() + " no longer reads commands: " + tail(), e);
        }
    }

    /**
     * Waits for the next output line and checks that it starts with {@code prefix}.
     *
     * @return the line
     * @throws IllegalStateException if another line comes, or none within {@code timeout}; the
     *     message carries the end of the client's log
     */
    public String expect(String prefix, Duration timeout) throws InterruptedException {
        String line = lines.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
        if (line == null) {
            throw new IllegalStateException("client " + pid() + " said nothing within " + timeout + " (expected "
                    + prefix + ", alive=" + process.isAlive() + "): " + tail());
        }
        if (!line.startsWith(prefix)) {
            throw new IllegalStateException(
                    "client " + pid() + " said '" + line + "', expected " + prefix + ": " + tail());
        }
        return line;
    }

    /** Stops the whole process (SIGSTOP): every thread, timer and heartbeat. */
    public void stop() {
        ProcessSignals.stop(process.pid());
    }

    /** Continues a {@link #stop() stopped} process (SIGCONT). */
    public void resume() {
        ProcessSignals.resume(process.pid());
    }

    /** Asks the client to write its history and exit, then reads the history. */
    public History finish(Duration timeout) throws IOException, InterruptedException {
        send("EXIT");
        expect("BYE", timeout);
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException("client " + pid() + " did not exit after BYE");
        }
        return History.readFrom(history);
    }

    /** The end of the client's log, for messages. */
    public String tail() {
        try {
            List<String> all = Files.exists(log) ? Files.readAllLines(log, StandardCharsets.UTF_8) : List.of();
            return String.join("\n", all.subList(Math.max(0, all.size() - 30), all.size()));
        } catch (IOException e) {
            return "(log unreadable: " + e + ")";
        }
    }

    /** Kills the process (SIGKILL by its pid) unless it already exited. Idempotent. */
    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroyForcibly();
            try {
                process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
