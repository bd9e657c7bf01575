package dev.fencedlock.testkit.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;

/**
 * A throw-away self-signed certificate for {@code localhost} / {@code 127.0.0.1}, made with the
 * {@code openssl} command line, for TLS test servers ({@link RedisServerProcess.Builder#tls}) and
 * the clients that talk to them ({@link #sslSocketFactory()} trusts exactly this certificate).
 * Immutable and thread-safe once created.
 */
public final class RedisTls implements AutoCloseable {
    private static final String TRUST_STORE = "truststore.p12";
    private static final String TRUST_STORE_PASSWORD = "changeit";

    private final Path dir;
    private final SSLContext context;

    private RedisTls(Path dir, SSLContext context) {
        this.dir = dir;
        this.context = context;
    }

    /**
     * Whether TLS test servers can be made here: {@code openssl} runs and {@code redis-server} was
     * built with TLS. Tests use it in an assumption, so a machine without TLS skips rather than fails.
     */
    public static boolean available() {
        return succeeds("openssl", "version") && redisServerHasTls();
    }

    private static boolean redisServerHasTls() {
        try {
            RedisTls probe = generate();
            try (RedisServerProcess server =
                    RedisServerProcess.builder().tls(probe).start()) {
                return server.isAlive();
            } finally {
                probe.close();
            }
        } catch (RuntimeException e) {
            return false;
        }
    }

    /**
     * Generates a fresh key and certificate.
     *
     * @throws IllegalStateException if {@code openssl} fails
     */
    public static RedisTls generate() {
        try {
            Files.createDirectories(ServerReaper.BASE);
            Path dir = Files.createTempDirectory(ServerReaper.BASE, ServerReaper.ownerPrefix());
            run(
                    dir,
                    "openssl",
                    "req",
                    "-x509",
                    "-newkey",
                    "ec",
                    "-pkeyopt",
                    "ec_paramgen_curve:prime256v1",
                    "-nodes",
                    "-keyout",
                    "key.pem",
                    "-out",
                    "cert.pem",
                    "-days",
                    "2",
                    "-subj",
                    "/CN=localhost",
                    "-addext",
                    "subjectAltName=DNS:localhost,IP:127.0.0.1");
            return new RedisTls(dir, trusting(dir));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot load the generated certificate", e);
        }
    }

    private static SSLContext trusting(Path dir) throws IOException, GeneralSecurityException {
        Certificate cert;
        try (InputStream in = Files.newInputStream(dir.resolve("cert.pem"))) {
            cert = CertificateFactory.getInstance("X.509").generateCertificate(in);
        }
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("redis-test", cert);
        try (OutputStream out = Files.newOutputStream(dir.resolve(TRUST_STORE))) {
            trust.store(out, TRUST_STORE_PASSWORD.toCharArray());
        }
        TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init(trust);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, factory.getTrustManagers(), null);
        return context;
    }

    private static void run(Path dir, String... command) {
        try {
            Process process = new ProcessBuilder(command)
                    .directory(dir.toFile())
                    .redirectErrorStream(true)
                    .start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", command) + " failed:\n" + output);
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + command[0] + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + command[0], e);
        }
    }

    private static boolean succeeds(String... command) {
        try {
            Process process =
                    new ProcessBuilder(command).redirectErrorStream(true).start();
            process.getInputStream().readAllBytes();
            return process.waitFor(10, TimeUnit.SECONDS) && process.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** The PEM certificate, which is also its own CA. */
    public Path certificate() {
        return dir.resolve("cert.pem");
    }

    /** A PKCS12 trust store holding only this certificate; its password is {@link #trustStorePassword()}. */
    public Path trustStore() {
        return dir.resolve(TRUST_STORE);
    }

    public String trustStorePassword() {
        return TRUST_STORE_PASSWORD;
    }

    /** A context that trusts this certificate only. */
    public SSLContext sslContext() {
        return context;
    }

    public SSLSocketFactory sslSocketFactory() {
        return context.getSocketFactory();
    }

    List<String> serverArguments() {
        return List.of(
                "--tls-cert-file",
                certificate().toString(),
                "--tls-key-file",
                dir.resolve("key.pem").toString(),
                "--tls-ca-cert-file",
                certificate().toString(),
                "--tls-auth-clients",
                "no");
    }

    /** Deletes the key and certificate files. */
    @Override
    public void close() {
        ServerReaper.deleteRecursively(dir);
    }
}
