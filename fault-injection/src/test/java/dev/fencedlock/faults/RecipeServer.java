package dev.fencedlock.faults;

import dev.fencedlock.testkit.net.FreePorts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.stream.Stream;

/**
 * One {@code redis-server} process started from a configuration file and nothing else on its
 * command line (but {@code --sentinel} for a Sentinel), so the file's lines are all that configure
 * it. Its port is free when chosen and its directory is its own. {@link #kill()} is SIGKILL;
 * {@link #close()} kills it and deletes the directory, and a JVM shutdown hook kills it if a test
 * never gets that far. Thread-safe.
 */
final class RecipeServer implements AutoCloseable {
    private final int port;
    private final Path dir;
    private final Process process;
    private final Thread reaper;

    private RecipeServer(int port, Path dir, Process process) {
        this.port = port;
        this.dir = dir;
        this.process = process;
        this.reaper = new Thread(process::destroyForcibly, "redis-server " + port + " reaper");
        Runtime.getRuntime().addShutdownHook(reaper);
    }

    /**
     * Starts a server on a free port whose configuration file is {@code config} applied to that
     * port and a new directory, and waits until it answers {@code PING}.
     *
     * @param sentinel whether to start it as a Sentinel
     * @throws IllegalStateException if it does not answer within 15 s; the message carries its output
     */
    static RecipeServer start(BiFunction<Integer, Path, List<String>> config, boolean sentinel) {
        int port = FreePorts.loopback();
        try {
            Path dir = Files.createTempDirectory("fencedlock-recipe-" + port + "-");
            Path file = dir.resolve(sentinel ? "sentinel.conf" : "redis.conf");
            Files.write(file, config.apply(port, dir));
            List<String> command = new ArrayList<>(List.of("redis-server", file.toString()));
            if (sentinel) {
                command.add("--sentinel");
            }
            Process process = new ProcessBuilder(command)
                    .directory(dir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(dir.resolve("server.log").toFile())
                    .start();
            RecipeServer server = new RecipeServer(port, dir, process);
            server.awaitPing(sentinel);
            return server;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void awaitPing(boolean sentinel) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (true) {
            try {
                String reply = sentinel ? RedisCli.sentinel(port, "PING") : RedisCli.data(port, "PING");
                if (reply.trim().equals("PONG")) {
                    return;
                }
            } catch (IllegalStateException notYet) {
                // not listening yet
            }
            if (!process.isAlive() || System.nanoTime() - deadline > 0) {
                String log = log();
                close();
                throw new IllegalStateException("redis-server on port " + port + " did not start:\n" + log);
            }
            sleep(20);
        }
    }

    int port() {
        return port;
    }

    /** SIGKILL; returns once the process is gone. */
    void kill() {
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    String log() {
        try {
            return Files.readString(dir.resolve("server.log"));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    /** Kills the server and deletes its directory; idempotent. */
    @Override
    public void close() {
        kill();
        try {
            Runtime.getRuntime().removeShutdownHook(reaper);
        } catch (IllegalStateException shuttingDown) {
            // the hook runs anyway
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder())
                    .forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            // a temporary directory left behind
        }
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    @Override
    public String toString() {
        return "redis-server[127.0.0.1:" + port + "]";
    }
}
