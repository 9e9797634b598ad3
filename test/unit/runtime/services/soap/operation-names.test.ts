/** SOAP operation names in the API (issue 9 item 11): documented lowercase without underscores, called by any case of either name. */
import { describe, expect, it } from 'vitest';
import { soapServiceOpenApi } from '#runtime/openapi/soap-openapi.js';
import { LiveContract } from '#runtime/services/soap/soap-contract.js';
import { documentedName, documentedNames } from '#runtime/services/soap/operation-names.js';
import { documentWsdl, introspectText } from './soap-test-helpers.js';

/** The model of a WSDL whose operations are `names`, each taking an element of that name (one string, `value`). */
function operationsModel(names: string[]) {
  const schema = names
    .map(
      (name) =>
        `<xs:element name="${name}"><xs:complexType><xs:sequence><xs:element name="value" type="xs:string"/></xs:sequence></xs:complexType></xs:element>`,
    )
    .join('');
  return introspectText(
    documentWsdl(
      schema,
      names.map((name) => ({ name, input: name })),
    ),
  );
}

describe('documented operation names', () => {
  it.each([
    ['Get_Quote', 'getquote'],
    ['AddNumbers', 'addnumbers'],
    ['__x__', 'x'],
    ['plain', 'plain'],
  ])('%s -> %s', (name, want) => {
    expect(documentedName(name)).toBe(want);
  });

  it('stay distinct when two operations would share one', () => {
    expect(documentedNames(['Get_Item', 'GetItem', 'Other'])).toEqual(['get_item', 'getitem', 'other']);
    expect(documentedNames(['getItem', 'GetItem'])).toEqual(['getitem', 'getitem2']);
  });

  it('are never _spec, the route of the service document', () => {
    expect(documentedNames(['_spec'])).toEqual(['spec']);
    expect(documentedNames(['spec', '_spec'])).toEqual(['spec', 'spec2']);
  });
});

describe('a SOAP service document and its calls', async () => {
  const model = await operationsModel(['Get_Quote', 'AddNumbers']);

  it('documents each operation at its lowercase name without underscores', () => {
    expect(Object.keys(soapServiceOpenApi(model).paths).sort()).toEqual(['/', '/addnumbers', '/getquote']);
  });

  it('finds an operation by the documented path and by its WSDL name, in any case', () => {
    const contract = new LiveContract(model);
    for (const name of ['getquote', 'GetQuote', 'Get_Quote', 'get_quote', 'GET_QUOTE'])
      expect(contract.operation(name)?.name).toBe('Get_Quote');
    expect(contract.operation('addnumbers')?.name).toBe('AddNumbers');
    expect(contract.operation('add_numbers')).toBeUndefined();
  });
});

describe('operations whose WSDL names differ only in case', async () => {
  const model = await operationsModel(['GetItem', 'GETITEM']);

  it('offers the second under a suffix, says so, and finds each by its exact WSDL name', () => {
    expect(model.operations.map((operation) => [operation.name, operation.sourceName])).toEqual([
      ['GETITEM', 'GETITEM'],
      ['GetItem_2', 'GetItem'],
    ]);
    expect(model.warnings).toContain(
      "Operation 'GetItem' differs from 'GETITEM' only in case, which operation names in the API do not tell apart: it is offered as 'GetItem_2' (a call spelling 'GetItem' exactly still reaches it).",
    );
    const contract = new LiveContract(model);
    expect(contract.operation('GetItem')?.name).toBe('GetItem_2');
    expect(contract.operation('GETITEM')?.name).toBe('GETITEM');
    expect(contract.operation('getitem')?.name).toBe('GETITEM');
    expect(contract.operation('getitem_2')?.name).toBe('GetItem_2');
  });
});
