package dev.fencedlock.testkit.redis;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * Makes sure no test server outlives the JVM that started it.
 *
 * <ul>
 *   <li>Every running server is registered; a shutdown hook kills what is still registered, so a
 *       failing or aborted test run leaves nothing behind.
 *   <li>A JVM killed with SIGKILL runs no hook. Each server therefore lives in a directory under
 *       {@link #BASE} named after the owning JVM's pid. When this class loads, it kills servers whose
 *       owning JVM is gone, but only a process whose working directory is that very directory (Redis
 *       changes into its {@code --dir}), so it can never touch a server it did not start.
 * </ul>
 */
final class ServerReaper {
    static final Path BASE = Path.of(System.getProperty("java.io.tmpdir"), "fencedlock-redis");
    static final String PID_FILE = "server.pid";

    private static final Set<RedisServerProcess> RUNNING = ConcurrentHashMap.newKeySet();

    static {
        reapOrphans();
        Runtime.getRuntime().addShutdownHook(new Thread(ServerReaper::killAll, "fencedlock-redis-reaper"));
    }

    private ServerReaper() {}

    /** The directory prefix of servers this JVM starts. */
    static String ownerPrefix() {
        return ProcessHandle.current().pid() + "-";
    }

    static void register(RedisServerProcess server) {
        RUNNING.add(server);
    }

    static void unregister(RedisServerProcess server) {
        RUNNING.remove(server);
    }

    private static void killAll() {
        for (RedisServerProcess server : RUNNING) {
            server.killQuietly();
        }
    }

    private static void reapOrphans() {
        if (!Files.isDirectory(BASE)) {
            return;
        }
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(BASE)) {
            for (Path dir : dirs) {
                ownerPid(dir).filter(ServerReaper::isGone).ifPresent(deadOwner -> reap(dir));
            }
        } catch (IOException e) {
            // best effort: an unreadable directory only means an orphan may survive
        }
    }

    /** No such process, or only its zombie (killed, not yet waited for by its parent). */
    private static boolean isGone(long pid) {
        if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
            try {
                String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.US_ASCII);
                return stat.substring(stat.lastIndexOf(')') + 1).trim().startsWith("Z");
            } catch (IOException | RuntimeException e) {
                return false;
            }
        }
        return true;
    }

    private static Optional<Long> ownerPid(Path dir) {
        String name = dir.getFileName().toString();
        int dash = name.indexOf('-');
        if (dash <= 0) {
            return Optional.empty();
        }
        try {
            return Optional.of(Long.parseLong(name.substring(0, dash)));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    private static void reap(Path dir) {
        try {
            Path pidFile = dir.resolve(PID_FILE);
            if (Files.exists(pidFile)) {
                long pid = Long.parseLong(
                        Files.readString(pidFile, StandardCharsets.US_ASCII).trim());
                ProcessHandle.of(pid).filter(process -> runsIn(pid, dir)).ifPresent(ProcessHandle::destroyForcibly);
            }
            deleteRecursively(dir);
        } catch (IOException | NumberFormatException e) {
            // best effort, as above
        }
    }

    private static boolean runsIn(long pid, Path dir) {
        try {
            Path cwd = Files.readSymbolicLink(Path.of("/proc", Long.toString(pid), "cwd"));
            return cwd.equals(dir.toRealPath());
        } catch (IOException | UnsupportedOperationException e) {
            return false;
        }
    }

    static void deleteRecursively(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> {
                try {
                    Files.deleteIfExists(path);
                } catch (IOException e) {
                    // leave it; the directory is in tmp
                }
            });
        } catch (IOException e) {
            // as above
        }
    }
}
