package io.valueguard;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

@SpringBootApplication
@ConfigurationPropertiesScan
public class ValueGuardApplication {

	public static void main(String[] args) {
		SpringApplication.run(ValueGuardApplication.class, args);
	}

}
