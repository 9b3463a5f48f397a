package io.valueguard.support;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The JDK's keytool, for tests that need certificates: no certificate library beyond the JDK. */
public final class Keytool {

	private Keytool() {
	}

	/**
	 * A PKCS12 key store {@code keystore} with a self-signed certificate for {@code localhost}, and a trust store
	 * {@code truststore} that trusts it, both with {@code password}.
	 */
	public static void localhost(Path keystore, Path truststore, String password) throws IOException,
			InterruptedException {
		Path certificate = keystore.resolveSibling(keystore.getFileName() + ".crt");
		run("-genkeypair", "-alias", "localhost", "-keyalg", "RSA", "-keysize", "2048", "-dname", "CN=localhost",
				"-ext", "SAN=dns:localhost,ip:127.0.0.1", "-validity", "2", "-storetype", "PKCS12", "-keystore",
				keystore.toString(), "-storepass", password, "-keypass", password);
		run("-exportcert", "-alias", "localhost", "-keystore", keystore.toString(), "-storepass", password, "-rfc",
				"-file", certificate.toString());
		run("-importcert", "-noprompt", "-alias", "localhost", "-file", certificate.toString(), "-storetype", "PKCS12",
				"-keystore", truststore.toString(), "-storepass", password);
	}

	private static void run(String... arguments) throws IOException, InterruptedException {
		List<String> command = new ArrayList<>();
		command.add(Path.of(ChildJvm.java()).resolveSibling("keytool").toString());
		command.addAll(List.of(arguments));
		Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
		String output = new String(process.getInputStream().readAllBytes());
		assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
		assertThat(process.exitValue()).as(output).isZero();
	}

}
