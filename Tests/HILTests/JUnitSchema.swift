/// The structure the common JUnit XML schemas (Apache Ant's XMLJUnitResultFormatter as
/// Jenkins' junit.xsd describes it) agree on, written out so `xmllint --schema` can hold
/// `hapbridge run --junit` to it: <testsuites> of <testsuite> (properties first, then
/// testcases, then system-out and system-err), a <testcase> holding at most one
/// <skipped>, then <error>s, <failure>s and its output; properties only on a suite;
/// the attributes each element requires.
enum JUnitSchema {
    static let xsd = """
        <?xml version="1.0" encoding="UTF-8"?>
        <xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" elementFormDefault="qualified">
          <xs:element name="testsuites">
            <xs:complexType>
              <xs:sequence><xs:element ref="testsuite" minOccurs="0" maxOccurs="unbounded"/></xs:sequence>
              <xs:attribute name="name" type="xs:string"/>
              <xs:attribute name="time" type="xs:decimal"/>
              <xs:attribute name="tests" type="xs:nonNegativeInteger"/>
              <xs:attribute name="failures" type="xs:nonNegativeInteger"/>
              <xs:attribute name="errors" type="xs:nonNegativeInteger"/>
              <xs:attribute name="skipped" type="xs:nonNegativeInteger"/>
              <xs:attribute name="disabled" type="xs:nonNegativeInteger"/>
            </xs:complexType>
          </xs:element>
          <xs:element name="testsuite">
            <xs:complexType>
              <xs:sequence>
                <xs:element name="properties" minOccurs="0">
                  <xs:complexType>
                    <xs:sequence>
                      <xs:element name="property" minOccurs="0" maxOccurs="unbounded">
                        <xs:complexType>
                          <xs:attribute name="name" type="xs:string" use="required"/>
                          <xs:attribute name="value" type="xs:string" use="required"/>
                        </xs:complexType>
                      </xs:element>
                    </xs:sequence>
                  </xs:complexType>
                </xs:element>
                <xs:element ref="testcase" minOccurs="0" maxOccurs="unbounded"/>
                <xs:element name="system-out" type="xs:string" minOccurs="0"/>
                <xs:element name="system-err" type="xs:string" minOccurs="0"/>
              </xs:sequence>
              <xs:attribute name="name" type="xs:string" use="required"/>
              <xs:attribute name="tests" type="xs:nonNegativeInteger" use="required"/>
              <xs:attribute name="failures" type="xs:nonNegativeInteger" use="required"/>
              <xs:attribute name="errors" type="xs:nonNegativeInteger" use="required"/>
              <xs:attribute name="skipped" type="xs:nonNegativeInteger"/>
              <xs:attribute name="disabled" type="xs:nonNegativeInteger"/>
              <xs:attribute name="time" type="xs:decimal" use="required"/>
              <xs:attribute name="timestamp" type="xs:dateTime" use="required"/>
              <xs:attribute name="hostname" type="xs:string" use="required"/>
              <xs:attribute name="id" type="xs:string"/>
              <xs:attribute name="package" type="xs:string"/>
            </xs:complexType>
          </xs:element>
          <xs:element name="testcase">
            <xs:complexType>
              <xs:sequence>
                <xs:element name="skipped" minOccurs="0">
                  <xs:complexType mixed="true"><xs:attribute name="message" type="xs:string"/></xs:complexType>
                </xs:element>
                <xs:element name="error" minOccurs="0" maxOccurs="unbounded">
                  <xs:complexType mixed="true">
                    <xs:attribute name="message" type="xs:string"/><xs:attribute name="type" type="xs:string"/>
                  </xs:complexType>
                </xs:element>
                <xs:element name="failure" minOccurs="0" maxOccurs="unbounded">
                  <xs:complexType mixed="true">
                    <xs:attribute name="message" type="xs:string"/><xs:attribute name="type" type="xs:string"/>
                  </xs:complexType>
                </xs:element>
                <xs:element name="system-out" type="xs:string" minOccurs="0" maxOccurs="unbounded"/>
                <xs:element name="system-err" type="xs:string" minOccurs="0" maxOccurs="unbounded"/>
              </xs:sequence>
              <xs:attribute name="name" type="xs:string" use="required"/>
              <xs:attribute name="classname" type="xs:string" use="required"/>
              <xs:attribute name="time" type="xs:decimal" use="required"/>
              <xs:attribute name="assertions" type="xs:string"/>
              <xs:attribute name="status" type="xs:string"/>
            </xs:complexType>
          </xs:element>
        </xs:schema>
        """
}
